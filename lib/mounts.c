/*
 * The mount table, and where a path is in its filesystem: the device and
 * the path from that filesystem's root, through the mount that shows it.
 * What the scope allows on an inode is decided there, whatever name it is
 * reached by.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Cuts the next blank-separated field out of *p, in place. */
static char *field(char **p)
{
	char *start = *p, *end = strchr(start, ' ');

	if (!end)
		return NULL;
	*end = '\0';
	*p = end + 1;
	return start;
}

int sbx__mounts_read(struct mount_table *t)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	size_t len = 0, room = 8192, cap = 0;
	ssize_t got;

	if (fd < 0)
		return errno;
	/* Read whole: the kernel builds it line by line anyway. */
	for (;;) {
		char *grown = len + 1 >= room || !t->text ? realloc(t->text, room *= 2) : t->text;

		if (!grown) {
			close(fd);
			return ENOMEM;
		}
		t->text = grown;
		if ((got = read(fd, t->text + len, room - len - 1)) <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (got < 0)
		return errno;
	t->text[len] = '\0';
	for (char *line = t->text, *next; *line; line = next) {
		char *p = line, *id, *dev, *root, *point, *colon;
		struct mount *grown;

		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		/* id parent major:minor root point ... */
		if (!(id = field(&p)) || !field(&p) || !(dev = field(&p)) || !(root = field(&p)) ||
		    !(point = field(&p)) || !(colon = strchr(dev, ':')))
			continue;
		if (!(grown = sbx__grow(t->v, &cap, t->n + 1, sizeof(*t->v))))
			return ENOMEM;
		t->v = grown;
		unescape(root);
		unescape(point);
		t->v[t->n++] = (struct mount){ .id = strtoul(id, NULL, 10),
		                               .dev_major = (unsigned)strtoul(dev, NULL, 10),
		                               .dev_minor = (unsigned)strtoul(colon + 1, NULL, 10),
		                               .root = root, .point = point };
	}
	return 0;
}

void sbx__mounts_free(struct mount_table *t)
{
	free(t->v);
	free(t->text);
}

/* The mounts on entries of the directory being expanded, by the entry's
 * name (in out, room for every mount): usually none, so that the entries
 * are not each compared with the whole table. */
size_t sbx__mounts_here(const struct compiler *cc, const struct mount **out)
{
	size_t dlen = strlen(cc->path), n = 0;

	for (size_t i = 0; i < cc->nmounts; i++) {
		const char *mp = cc->mounts[i].point;
		const char *base = strcmp(cc->path, "/") == 0 ? mp + 1 : mp + dlen + 1;

		if (strcmp(cc->path, "/") == 0 ? mp[0] == '/'
		                               : strncmp(mp, cc->path, dlen) == 0 && mp[dlen] == '/')
			if (*base && !strchr(base, '/'))
				out[n++] = &cc->mounts[i];
	}
	return n;
}

/* The mount on entry name (the last one made there, which is the one
 * seen), or NULL. */
const struct mount *sbx__mount_on(const struct mount *const *here, size_t n, size_t dlen,
                                    const char *name)
{
	const struct mount *found = NULL;

	for (size_t i = 0; i < n; i++)
		if (strcmp(here[i]->point + dlen + 1, name) == 0)
			found = here[i];
	return found;
}

static const struct mount *mount_by_id(const struct compiler *cc, unsigned long id)
{
	for (size_t i = 0; i < cc->nmounts; i++)
		if (cc->mounts[i].id == id)
			return &cc->mounts[i];
	return NULL;
}

/* The mount an open file or a path is seen through: by its mount id, which
 * no order of the table or moving of mounts can confuse. */
const struct mount *sbx__mount_of(const struct compiler *cc, int dirfd, const char *path)
{
	struct statx sx;

	if (statx(dirfd, path, AT_SYMLINK_NOFOLLOW | (*path ? 0 : AT_EMPTY_PATH), STATX_MNT_ID, &sx) ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return NULL;
	return mount_by_id(cc, (unsigned long)sx.stx_mnt_id);
}

/* Where path is in its filesystem.  A path that does not exist is placed
 * through its nearest existing ancestor. */
bool sbx__place_path(const struct compiler *cc, const char *path, struct fs_place *out)
{
	char known[PATH_MAX];
	const struct mount *m = NULL;

	snprintf(known, sizeof(known), "%s", path);
	while (!(m = sbx__mount_of(cc, AT_FDCWD, known)) && strcmp(known, "/"))
		sbx__path_pop(known);
	if (!m || !sbx__path_covers(m->point, known))
		return false;
	out->home = m;
	out->dev_major = m->dev_major;
	out->dev_minor = m->dev_minor;
	snprintf(out->rel, sizeof(out->rel), "%s%s", strcmp(m->root, "/") ? m->root : "",
	         sbx__path_after(m->point, path));
	if (!out->rel[0])
		strcpy(out->rel, "/");
	out->path = path;
	return true;
}

/* What the scope allows on a grant to the inode at (dev, rel) of its
 * filesystem, whatever name it is reached by: the rights of the nearest
 * configured place above or at it, less any right a configured place
 * beneath it withholds (a grant holds on everything beneath its inode).
 * places: those that can matter, as sbx__places_near() picks them. */
uint64_t sbx__place_clamp(const struct fs_place *const *places, size_t n, unsigned maj,
                         unsigned min, const char *rel, uint64_t rights,
                         const struct fs_place **why)
{
	size_t best = 0;
	const struct fs_place *nearest = NULL, *under = NULL;
	uint64_t above = ~0ULL, below = ~0ULL;

	for (size_t i = 0; i < n; i++) {
		const struct fs_place *p = places[i];
		size_t len = strlen(p->rel);

		if (p->dev_major != maj || p->dev_minor != min)
			continue;
		if (sbx__path_covers(p->rel, rel)) {
			if (!nearest || len > best) {
				best = len;
				above = p->rights;
				nearest = p;
			} else if (len == best) {
				above |= p->rights; /* one path twice: the widest */
			}
		} else if (sbx__path_covers(rel, p->rel) && (rights & ~p->rights)) {
			below &= p->rights;
			under = p;
		}
	}
	if (why)
		*why = (rights & ~above) ? nearest : under;
	return rights & above & below;
}

/* The places that can bear on the directory d and its entries: on its
 * device, above it or beneath it. */
size_t sbx__places_near(const struct compiler *cc, const struct fs_place *d,
                              const struct fs_place **out)
{
	size_t n = 0;

	for (size_t i = 0; i < cc->nplaces; i++) {
		const struct fs_place *p = &cc->places[i];

		if (p->dev_major == d->dev_major && p->dev_minor == d->dev_minor &&
		    (sbx__path_covers(p->rel, d->rel) || sbx__path_covers(d->rel, p->rel)))
			out[n++] = p;
	}
	return n;
}

/* Where the directory open as dirfd, reached as cc->path, is. */
bool sbx__place_dir(const struct compiler *cc, int dirfd, struct fs_place *out)
{
	const struct mount *m = sbx__mount_of(cc, dirfd, "");

	if (!m || !sbx__path_covers(m->point, cc->path))
		return false;
	out->home = m;
	out->dev_major = m->dev_major;
	out->dev_minor = m->dev_minor;
	snprintf(out->rel, sizeof(out->rel), "%s%s", strcmp(m->root, "/") ? m->root : "",
	         sbx__path_after(m->point, cc->path));
	if (!out->rel[0])
		strcpy(out->rel, "/");
	out->path = NULL;
	return true;
}
