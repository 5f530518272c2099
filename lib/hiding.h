/* SPDX-License-Identifier: MIT */
/* What the parent knows of hiding a denial: whether a child of this
 * process can (hidehere.c), whether a compiled ruleset's covers are still
 * where they were (hidekept.c), what a child would hold from before its
 * namespace (held.c), and the event that says a spawn expands instead. */
#ifndef SBX_HIDING_H
#define SBX_HIDING_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/internal.h"

/* A child of this process could not make its namespace (err, at the step
 * call): from now on every denial is expanded.  Only for a refusal that
 * lasts (sbx__hide_refusal_lasts). */
void sbx__hide_refused(int err, const char *call);
/* Whether err, met making a child's namespace, is the kernel's "no" (user
 * namespaces off, a filter, a security module, a chroot), not a resource
 * short for the moment (no descriptor, no memory, a limit of processes):
 * the spawn that met one of these expands alone. */
bool sbx__hide_refusal_lasts(int err);
/* Whether no denial of scope (NULL: of any) is hidden here, why in why. */
bool sbx__hide_unavailable(const struct sbx_scope *scope, char *why, size_t size);
/* Whether a child of this process can hide denials now: a child tries
 * (sbxrun --status, a snapshot's compile, an explanation's): 1 yes, 0 no,
 * -1 not known (no child could be asked); what, or why, in why; the
 * answer kept (record) or not (hidehere.c). */
int sbx__hide_probe(char *why, size_t size, bool record);
/* Whether each hidden denial of rs, and each path bound back, is as it was. */
bool sbx__hide_current(const struct sbx_ruleset *rs);
/* Whether path lies in a path of rs bound back into a cover (or is one). */
bool sbx__hide_bound(const struct sbx_ruleset *rs, const char *path);
void sbx__hide_release(struct sbx_ruleset *rs);
/* Whether a child spawned now, with the file actions fa, would hold from
 * before its namespace something that reaches one of rs's hidden denials
 * past its cover: its working directory in one, a descriptor it inherits
 * in or above one (what names the caller's mounts never meets a cover;
 * looked for in the caller's table where inherited), one a file action
 * opens or changes into in one: 1, *what saying which; 0; or -ENOMEM. */
int sbx__held_reaches(const struct sbx_ruleset *rs, const sbx_file_actions_t *fa, bool inherited,
                      char *what, size_t size);
/* The same, the caller's table looked at, where rs hides nothing yet: what
 * would make a spawn that hides a denial made since expand it (a directory
 * it inherits, wherever it lies), or one of rs's (frozen.c). */
int sbx__held_any(const struct sbx_ruleset *rs, const sbx_file_actions_t *fa, char *what,
                  size_t size);
/* What the caller's descriptor fd is, said in what, as sbx__held_reaches
 * says it. */
void sbx__held_say(int fd, char *what, size_t size);
/* SBX_EVENT_HIDING: rs's hidden denials are expanded for this spawn, for
 * what (said where the scope demands hiding, SBX_SCOPE_HIDE, as its
 * failure; else for the loggers that keep data). */
void sbx__hide_event(const struct sbx_scope *scope, const struct sbx_ruleset *rs, const char *what);

#endif /* SBX_HIDING_H */
