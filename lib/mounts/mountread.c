/* SPDX-License-Identifier: MIT */
/*
 * Reading the calling thread's mount table: its rows, then the mount
 * holding the root (rootmount.c), the index by id and by point (mounts.c),
 * and what each mount shows again, placed (layers.c).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"
#include "lib/layers.h"

/* The whole table from fd, opened at its start (the kernel builds it line
 * by line anyway). */
static int slurp(int fd, char **text)
{
	size_t len = 0, room = 8192;
	ssize_t got = 0;
	char *buf = NULL, *grown;

	do {
		len += (size_t)got;
		if (len + 1 >= room || !buf) {
			if (!(grown = realloc(buf, room *= 2))) {
				free(buf);
				return ENOMEM;
			}
			buf = grown;
		}
	} while ((got = read(fd, buf + len, room - len - 1)) > 0);
	if (got < 0) {
		free(buf);
		return errno;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/* id parent major:minor root point options [optional...] - type source super */
static bool parse_line(char *line, struct mount *mt, char **type, char **source, char **super)
{
	static char none[1];
	char *p = line, *id, *parent, *dev, *root, *point, *f;

	if (!(id = sbx__mounts_field(&p, ' ')) || !(parent = sbx__mounts_field(&p, ' ')) || !(dev = sbx__mounts_field(&p, ' ')) ||
	    !(root = sbx__mounts_field(&p, ' ')) || !(point = sbx__mounts_field(&p, ' ')) || !strchr(dev, ':'))
		return false;
	while ((f = sbx__mounts_field(&p, ' ')) && strcmp(f, "-"))
		;
	if (!f || !(*type = sbx__mounts_field(&p, ' ')) || !(*source = sbx__mounts_field(&p, ' ')))
		return false;
	*super = p ? p : none;
	sbx__mounts_unescape(root);
	sbx__mounts_unescape(point);
	sbx__mounts_unescape(*source);
	*mt = (struct mount){ .id = strtoull(id, NULL, 10), .parent = strtoull(parent, NULL, 10),
	                      .point = point, .type = *type,
	                      .own = { .dev_major = (unsigned)strtoul(dev, NULL, 10),
	                               .dev_minor = (unsigned)strtoul(strchr(dev, ':') + 1, NULL, 10),
	                               .rel = root } };
	return true;
}

static int parse_table(struct mounts *m)
{
	size_t cap = 0, layers_cap = 0;
	int err;

	for (char *line = m->text, *next; line && *line; line = next) {
		char *type, *source, *super;
		struct mount mt, *grown;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_line(line, &mt, &type, &source, &super))
			continue;
		if ((err = sbx__mounts_note_stacking(m, &layers_cap, &mt, type, source, super)))
			return err;
		if (!(grown = sbx__grow(m->v, &cap, m->n + 1, sizeof(*m->v))))
			return ENOMEM;
		m->v = grown;
		m->v[m->n++] = mt;
	}
	return 0;
}

int sbx__mounts_read(struct mounts *m, int fd)
{
	int err;

	*m = (struct mounts){ 0 };
	if (fd < 0)
		return ENOENT;
	err = slurp(fd, &m->text);
	if (!err)
		err = parse_table(m);
	if (!err)
		err = sbx__mounts_root(m);
	if (!err)
		err = sbx__mounts_index(m);
	if (!err)
		err = sbx__mounts_place_layers(m);
	return err;
}
