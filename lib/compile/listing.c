/* SPDX-License-Identifier: MIT */
/*
 * Listings: a directory's entries read whole, before any is opened, sorted
 * by name; kept with the ruleset for the directories a compile expanded, so
 * that a later spawn can tell what changed there by listing it again.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"

int sbx__listing_add(struct listing *l, const char *name, ino_t ino, unsigned char type,
                     enum entry_kind kind)
{
	size_t len = strlen(name) + 1;
	struct entry *v;
	char *names;

	if (!(v = sbx__grow(l->v, &l->cap, l->n + 1, sizeof(*l->v))))
		return ENOMEM;
	l->v = v;
	if (!(names = sbx__grow(l->names, &l->room, l->len + len, 1)))
		return ENOMEM;
	l->names = names;
	memcpy(l->names + l->len, name, len);
	l->v[l->n++] = (struct entry){ .name = (uint32_t)l->len, .ino = ino, .type = type,
	                               .kind = (unsigned char)kind };
	l->len += len;
	return 0;
}

/* A handle is kept as its length (one byte: MAX_HANDLE_SZ is 128), its
 * type and its bytes. */
int sbx__listing_prove(struct listing *l, struct entry *e, const struct proof *p)
{
	const struct file_handle *fh = PROOF_FH(p);
	size_t len = 1 + sizeof(fh->handle_type) + fh->handle_bytes;
	unsigned char *grown;

	e->proof = p->dir ? PROOF_DIR : PROOF_NONE;
	/* Without one, an unlink of the name proves nothing: no failure;
	 * but out of memory is. */
	if (p->dir || !fh->handle_bytes || fh->handle_bytes > MAX_HANDLE_SZ ||
	    l->plen + len >= PROOF_DIR)
		return 0;
	if (!(grown = sbx__grow(l->proofs, &l->proom, l->plen + len, 1)))
		return ENOMEM;
	l->proofs = grown;
	grown[l->plen] = (unsigned char)fh->handle_bytes;
	memcpy(grown + l->plen + 1, &fh->handle_type, sizeof(fh->handle_type));
	memcpy(grown + l->plen + 1 + sizeof(fh->handle_type), fh->f_handle, fh->handle_bytes);
	e->proof = (uint32_t)(l->plen + 1);
	l->plen += len;
	return 0;
}

const struct file_handle *sbx__listing_handle(const struct listing *l, const struct entry *e,
                                              struct proof *buf)
{
	struct file_handle *fh = PROOF_FH(buf);
	const unsigned char *at;

	if (e->proof == PROOF_NONE || e->proof == PROOF_DIR)
		return NULL;
	at = l->proofs + e->proof - 1;
	fh->handle_bytes = at[0];
	memcpy(&fh->handle_type, at + 1, sizeof(fh->handle_type));
	memcpy(fh->f_handle, at + 1 + sizeof(fh->handle_type), fh->handle_bytes);
	return fh;
}

int sbx__listing_carry(struct listing *to, const struct listing *from, const struct entry *e)
{
	struct proof p = { .dir = e->proof == PROOF_DIR };
	int err = sbx__listing_add(to, sbx__entry_name(from, e), e->ino, e->type, e->kind);

	if (!err && !sbx__listing_handle(from, e, &p))
		PROOF_FH(&p)->handle_bytes = 0;
	if (!err)
		err = sbx__listing_prove(to, &to->v[to->n - 1], &p);
	return err;
}

static int by_name(const void *a, const void *b, void *names)
{
	return strcmp((const char *)names + ((const struct entry *)a)->name,
	              (const char *)names + ((const struct entry *)b)->name);
}

int sbx__listing_read_open(int fd, struct listing *l)
{
	char buf[32768];
	int err = 0;
	long got;

	while (!err && (got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got && !err;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
				err = sbx__listing_add(l, d->d_name, d->d_ino, d->d_type, ENTRY_OTHER);
		}
	if (!err && got < 0)
		err = errno;
	if (!err)
		sbx__listing_sort(l);
	return err;
}

int sbx__listing_read(int dirfd, struct listing *l)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (fd < 0)
		return errno;
	err = sbx__listing_read_open(fd, l);
	close(fd);
	return err;
}

void sbx__listing_sort(struct listing *l)
{
	if (l->n > 1)
		qsort_r(l->v, l->n, sizeof(*l->v), by_name, l->names);
}

void sbx__listing_free(struct listing *l)
{
	free(l->v);
	free(l->names);
	free(l->proofs);
	*l = (struct listing){ 0 };
}

const struct entry *sbx__listing_find(const struct listing *l, const char *name)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(l->names + l->v[mid].name, name);

		if (c == 0)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
