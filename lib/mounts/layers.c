/* SPDX-License-Identifier: MIT */
/*
 * What a mount shows again beyond its own filesystem, and where: an
 * overlay's layers, the directory a filesystem is mounted from, the image
 * file behind a loop device or served through FUSE.  The table names them
 * by paths, which are the mounter's: each is placed here through the path
 * only where that path can name it (absolute, through no symlink, not in a
 * chroot); anywhere else the mount's layers are unknown, and such a mount
 * is never granted in a listed directory.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"
#include "lib/layers.h"

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
int sbx__mounts_note_stacking(struct mounts *m, size_t *cap, struct mount *mt, const char *type,
                         const char *source, char *super)
{
	struct stat st;
	char *opt;
	int err = 0;

	mt->nlayers = 0;
	if (strcmp(type, "overlay") == 0) {
		while (!err && (opt = sbx__mounts_field(&super, ','))) {
			char *key = sbx__mounts_field(&opt, '=');

			if (!opt)
				continue;
			sbx__mounts_unescape(opt);
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
int sbx__mounts_place_layers(struct mounts *m)
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
