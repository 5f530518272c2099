/* SPDX-License-Identifier: MIT */
/*
 * The mount table of the calling thread, and where the configured paths are
 * in their filesystems.
 *
 * Landlock rules hold on inodes, and one inode can have several names: a
 * filesystem mounted twice, a bind mount of a directory, an overlay that
 * shows its lower and upper directories again under its own mount.  A
 * configured path is therefore also a place, a device and a path from that
 * filesystem's root, and what the scope allows on an inode is decided by
 * the places around it, whatever name the compile reached it by.  Places are
 * kept only for filesystems seen through more than one view: elsewhere a
 * name is the only way to an inode, and the tree alone decides.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "lib/compiler.h"

/* ---- strings ------------------------------------------------------------ */

/* mountinfo escapes blanks, tabs, newlines, backslashes (and, in options,
 * commas) as \ooo. */
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

/* Cuts the next field out of *p at sep, in place. */
static char *field(char **p, char sep)
{
	char *start = *p, *end;

	if (!start)
		return NULL;
	if ((end = strchr(start, sep))) {
		*end = '\0';
		*p = end + 1;
	} else {
		*p = NULL;
	}
	return start;
}

/* a and b joined, kept with the table. */
const char *sbx__mounts_keep(struct mounts *m, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);
	char **grown;

	if (!s || !(grown = sbx__grow(m->extra, &m->extra_cap, m->extra_len + 1, sizeof(char *)))) {
		free(s);
		return NULL;
	}
	m->extra = grown;
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	m->extra[m->extra_len++] = s;
	return s;
}

/* path as seen through mount mt (path is at or below its point). */
const char *sbx__mounts_rel(struct mounts *m, const struct mount *mt, const char *path)
{
	const char *suffix = sbx__path_after(mt->point, path);

	if (!*suffix)
		return mt->own.rel;
	if (strcmp(mt->own.rel, "/") == 0)
		return suffix;
	return sbx__mounts_keep(m, mt->own.rel, suffix);
}

/* ---- reading the table -------------------------------------------------- */

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

	if (!(id = field(&p, ' ')) || !(parent = field(&p, ' ')) || !(dev = field(&p, ' ')) ||
	    !(root = field(&p, ' ')) || !(point = field(&p, ' ')) || !strchr(dev, ':'))
		return false;
	while ((f = field(&p, ' ')) && strcmp(f, "-"))
		;
	if (!f || !(*type = field(&p, ' ')) || !(*source = field(&p, ' ')))
		return false;
	*super = p ? p : none;
	unescape(root);
	unescape(point);
	unescape(*source);
	*mt = (struct mount){ .id = strtoull(id, NULL, 10), .parent = strtoull(parent, NULL, 10),
	                      .point = point, .type = *type,
	                      .own = { .dev_major = (unsigned)strtoul(dev, NULL, 10),
	                               .dev_minor = (unsigned)strtoul(strchr(dev, ':') + 1, NULL, 10),
	                               .rel = root } };
	return true;
}

static int by_id(const void *a, const void *b)
{
	const struct mount *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The layers' paths of a stacking mount, kept (still to be placed) in
 * m->layer_store with path set and dev_major ~0. */
static int note_layer(struct mounts *m, size_t *cap, struct mount *mt, const char *path)
{
	struct view *grown;

	if (!*path)
		return 0; /* "::" before data-only layers */
	if (!(grown = sbx__grow(m->layer_store, cap, m->nlayer_store + 1, sizeof(*grown))))
		return ENOMEM;
	m->layer_store = grown;
	m->layer_store[m->nlayer_store++] = (struct view){ .dev_major = ~0U, .path = path };
	mt->nlayers++;
	return 0;
}

/* An overlay's lowerdir holds layers separated by ':', in which a literal
 * ':' is "\:". */
static int note_lowerdirs(struct mounts *m, size_t *cap, struct mount *mt, char *list)
{
	char *w = list, *start = list;
	int err;

	for (char *r = list;; r++) {
		if (r[0] == '\\' && r[1] == ':') {
			*w++ = ':';
			r++;
		} else if (*r == ':' || !*r) {
			bool last = !*r;

			*w++ = '\0';
			if ((err = note_layer(m, cap, mt, start)))
				return err;
			start = w;
			if (last)
				return 0;
		} else {
			*w++ = *r;
		}
	}
}

/* A one-line sysfs file into buf, its last newline cut (a path it names may
 * hold newlines of its own); false where it is not. */
static bool sysfs_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return true;
}

/* The files a block device reads its blocks from: a loop device's image,
 * which sysfs names, found through a partition (its disk's) and through the
 * devices a mapping is made of (device mapper's slaves: crypt, LVM), a few
 * levels deep.  An image's path as sysfs gives it may end in " (deleted)":
 * then it places nowhere, and the mount's layers are unknown, as where
 * sysfs does not know the device at all. */
int sbx__mounts_note_images(struct mounts *m, size_t *cap, struct mount *mt, unsigned maj,
                            unsigned min, int depth)
{
	char dir[96], path[192], line[PATH_MAX + 16];
	const char *kept;
	DIR *d;
	struct dirent *e;
	int err = 0;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", maj, min);
	/* No sysfs here (a chroot without it): whether an image lies
	 * behind the device cannot be told. */
	if (access(dir, F_OK)) {
		mt->layers_unknown = true;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%sloop/backing_file", dir,
	         access(strcat(strcpy(line, dir), "/partition"), F_OK) ? "" : "../");
	if (sysfs_line(path, line, sizeof(line))) {
		mt->image = true;
		if (!(kept = sbx__mounts_keep(m, line, "")))
			return ENOMEM;
		return note_layer(m, cap, mt, kept);
	}
	snprintf(path, sizeof(path), "%s/slaves", dir);
	if (depth >= 4)
		return 0;
	/* No slaves, or none to read; but out of memory is no answer. */
	if (!(d = opendir(path)))
		return errno == ENOMEM ? ENOMEM : 0;
	while (!err && (e = readdir(d))) {
		unsigned smaj, smin;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%.64s/dev", e->d_name);
		if (sysfs_line(path, line, sizeof(line)) && sscanf(line, "%u:%u", &smaj, &smin) == 2)
			err = sbx__mounts_note_images(m, cap, mt, smaj, smin, depth + 1);
	}
	closedir(d);
	return err;
}

/* What a mount shows again beyond its own filesystem: an overlay's layers,
 * the source directory of a filesystem mounted from a path, or the image
 * file behind a loop device or named as the source. */
static int note_stacking(struct mounts *m, size_t *cap, struct mount *mt, const char *type,
                         const char *source, char *super)
{
	struct stat st;
	char *opt;
	int err = 0;

	mt->nlayers = 0;
	if (strcmp(type, "overlay") == 0) {
		while (!err && (opt = field(&super, ','))) {
			char *key = field(&opt, '=');

			if (!opt)
				continue;
			unescape(opt);
			/* lowerdir lists layers; lowerdir+ and datadir+ name one
			 * each, whose ':' is the path's own. */
			if (!strcmp(key, "lowerdir"))
				err = note_lowerdirs(m, cap, mt, opt);
			else if (!strcmp(key, "upperdir") || !strcmp(key, "lowerdir+") || !strcmp(key, "datadir+"))
				err = note_layer(m, cap, mt, opt);
		}
	} else if (source[0] == '/' && stat(source, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = note_layer(m, cap, mt, source);
	} else if (source[0] == '/' && stat(source, &st) == 0 && S_ISBLK(st.st_mode)) {
		err = sbx__mounts_note_images(m, cap, mt, major(st.st_rdev), minor(st.st_rdev), 0);
	} else if (source[0] == '/' && stat(source, &st) == 0 && S_ISREG(st.st_mode)) {
		/* An image a program serves (FUSE: fuse2fs, squashfuse)
		 * names its file as the source. */
		mt->image = true;
		err = note_layer(m, cap, mt, source);
	} else if (source[0] == '/' && !strncmp(type, "fuse", 4) && stat(source, &st) &&
	           errno == ENOENT) {
		/* A served file named by a path that names nothing here now
		 * (renamed, removed, or of another root). */
		mt->layers_unknown = true;
	} else if (mt->own.dev_major != 0) {
		/* Its source no block device here (a node since removed, a
		 * name of another namespace): the filesystem's own device
		 * number is the block device's (major 0: none, as tmpfs). */
		err = sbx__mounts_note_images(m, cap, mt, mt->own.dev_major, mt->own.dev_minor, 0);
	}
	return err;
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
		if ((err = note_stacking(m, &layers_cap, &mt, type, source, super)))
			return err;
		if (!(grown = sbx__grow(m->v, &cap, m->n + 1, sizeof(*m->v))))
			return ENOMEM;
		m->v = grown;
		m->v[m->n++] = mt;
	}
	return 0;
}

/* ---- mount points ------------------------------------------------------- */

static int by_point(const void *a, const void *b)
{
	return strcmp((*(struct mount *const *)a)->point, (*(struct mount *const *)b)->point);
}

/* The visible mount at each point: of several stacked at one point, the one
 * no other mount there sits on. */
static int index_points(struct mounts *m)
{
	struct mount **all = malloc((m->n + 1) * sizeof(*all));

	if (!all || !(m->points = malloc((m->n + 1) * sizeof(*m->points)))) {
		free(all);
		return ENOMEM;
	}
	for (size_t i = 0; i < m->n; i++)
		all[i] = &m->v[i];
	if (m->n)
		qsort(all, m->n, sizeof(*all), by_point);
	for (size_t i = 0, end; i < m->n; i = end) {
		for (end = i + 1; end < m->n && !strcmp(all[end]->point, all[i]->point); end++)
			;
		for (size_t a = i; a < end; a++) {
			bool covered = false, root = !strcmp(all[a]->point, "/") && m->root_id;

			for (size_t b = i; b < end && !covered; b++)
				covered = all[b]->parent == all[a]->id;
			/* At "/", the root's own mount, whatever is stacked on it. */
			if (root ? all[a]->id == m->root_id : !covered) {
				m->points[m->npoints++] = all[a];
				break;
			}
		}
	}
	free(all);
	return 0;
}

const struct mount *sbx__mount_at(const struct mounts *m, const char *path)
{
	struct mount key = { .point = path }, *kp = &key, **hit;

	if (!m->npoints)
		return NULL;
	hit = bsearch(&kp, m->points, m->npoints, sizeof(*m->points), by_point);
	return hit ? *hit : NULL;
}

const struct mount *sbx__mount_by_id(const struct mounts *m, uint64_t id)
{
	struct mount key = { .id = id };

	return m->n ? bsearch(&key, m->v, m->n, sizeof(key), by_id) : NULL;
}

/* The mount a path is seen through: the visible mount at its longest
 * prefix that is a mount point. */
const struct mount *sbx__mount_of(const struct mounts *m, const char *path)
{
	char buf[PATH_MAX];
	const struct mount *mt;

	snprintf(buf, sizeof(buf), "%s", path);
	while (!(mt = sbx__mount_at(m, buf)) && strcmp(buf, "/"))
		sbx__path_pop(buf);
	return mt;
}

/* Whether the path the table names for a layer is that layer's here: an
 * absolute path to a directory (an image: a file), through no symlink (a
 * relative path was relative to the mounter's directory, and a symlink may
 * point elsewhere now than when it was mounted). */
static bool layer_named(const char *path, bool image)
{
	char real[PATH_MAX];
	struct stat st;

	return path[0] == '/' && realpath(path, real) && !strcmp(real, path) &&
	       stat(real, &st) == 0 && (image ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode));
}

/* Each layer placed in its own filesystem, through the path the table
 * names; a layer that path does not name here is left out, and its mount
 * said to have layers unknown (never granted in a listed directory); in a
 * chroot, every layer (the paths are its mounter's: rootmount.c). */
static int place_layers(struct mounts *m)
{
	size_t next = 0;

	for (size_t i = 0; i < m->n; i++) {
		struct mount *mt = &m->v[i];
		unsigned kept = 0;

		mt->layers = mt->nlayers ? m->layer_store + next : NULL;
		for (unsigned k = 0; k < mt->nlayers; k++) {
			struct view *v = &m->layer_store[next + k];
			const struct mount *home = !m->chrooted && layer_named(v->path, mt->image)
			                                   ? sbx__mount_of(m, v->path)
			                                   : NULL;

			if (!home) {
				mt->layers_unknown = true;
				continue;
			}
			/* An image on a stacking filesystem (an overlay, a
			 * filesystem mounted from a directory) lies in one of
			 * its layers, which cannot be told from here: its
			 * layers are unknown, as the table's own are where it
			 * names them by no path here. */
			if (mt->image && (home->nlayers || home->layers_unknown))
				mt->layers_unknown = true;
			mt->layers[kept] = (struct view){ .dev_major = home->own.dev_major,
			                                  .dev_minor = home->own.dev_minor,
			                                  .rel = sbx__mounts_rel(m, home, v->path),
			                                  .path = v->path };
			if (!mt->layers[kept++].rel)
				return ENOMEM;
		}
		next += mt->nlayers;
		mt->nlayers = kept;
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
	if (!err) {
		if (m->n)
			qsort(m->v, m->n, sizeof(*m->v), by_id);
		err = index_points(m);
	}
	if (!err)
		err = place_layers(m);
	return err;
}

void sbx__mounts_free(struct mounts *m)
{
	for (size_t i = 0; i < m->extra_len; i++)
		free(m->extra[i]);
	free(m->extra);
	free(m->places);
	free(m->points);
	free(m->layer_store);
	free(m->v);
	free(m->text);
	*m = (struct mounts){ 0 };
}

ino_t sbx__mount_ns(void)
{
	struct stat st;

	if (!stat("/proc/thread-self/ns/mnt", &st) || !stat("/proc/self/ns/mnt", &st))
		return st.st_ino;
	return 0;
}
