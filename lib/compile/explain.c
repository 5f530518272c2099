/* SPDX-License-Identifier: MIT */
/*
 * Explaining a path: what a child spawned with a scope may do there, and
 * which path of the scope decides it.  A denied path surfaces inside a
 * confined program as a bare "Permission denied", far from the scope that
 * made it; this is the answer at the scope's end.
 *
 * The answer is a compile's, not a second reading of the rules: the scope
 * is compiled as a spawn would compile it, against the running kernel, and
 * every grant the compiler adds on the path or one of its ancestors is
 * collected (Landlock adds those up, so they are what the child gets); the
 * compile's events say what it left out, and its listed directories what
 * is frozen.  Only the why is read from the scope's own paths.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/compiler.h"

/* What the compile said about the path. */
struct heard {
	const char *path;    /* resolved */
	char parent[PATH_MAX];
	uint64_t at;         /* the rights of the grants on path and its ancestors */
	uint64_t above;      /* on its directory and the directory's ancestors */
	bool *left;          /* the scope's rules the compile did not apply, by index */
	const struct sbx_scope *scope;
	int drop_error;      /* the deepest dropped grant at or above path */
	char drop[PATH_MAX];
	char drop_message[1024];
	char note[2048];     /* a denial not applied, a second name: said after */
};

static void grant_heard(const char *granted, uint64_t access, bool dir, dev_t dev, ino_t ino,
                        void *arg)
{
	struct heard *h = arg;

	(void)dir;
	(void)dev;
	(void)ino;
	if (sbx__path_covers(granted, h->path))
		h->at |= access;
	if (sbx__path_covers(granted, h->parent))
		h->above |= access;
}

/* A note on what the compile did at or above the path: said after the
 * reason, each in its event's words. */
static void note(struct heard *h, const char *message)
{
	size_t len = strlen(h->note);

	snprintf(h->note + len, sizeof(h->note) - len, "%s%s", len ? "; " : "", message);
}

static void event_heard(const sbx_event_t *ev, void *arg)
{
	struct heard *h = arg;

	if ((ev->kind == SBX_EVENT_IGNORED_DENY && ev->path && sbx__path_covers(ev->path, h->path)) ||
	    (ev->kind == SBX_EVENT_IGNORED_LINK && ev->path2 &&
	     sbx__path_covers(ev->path2, h->path))) {
		note(h, ev->message);
	} else if (ev->kind == SBX_EVENT_ALIAS && ev->path2 && sbx__path_covers(ev->path2, h->path)) {
		note(h, ev->message);
	} else if (ev->kind == SBX_EVENT_DROPPED && ev->path && ev->path[0] == '/' &&
	           sbx__path_covers(ev->path, h->path) &&
	           (!h->drop[0] || strlen(ev->path) > strlen(h->drop))) {
		snprintf(h->drop, sizeof(h->drop), "%s", ev->path);
		snprintf(h->drop_message, sizeof(h->drop_message), "%s", ev->message);
		h->drop_error = ev->error;
	}
}

/* ---- the answer, kept per thread ----------------------------------------- */

struct answer {
	char rule[PATH_MAX], frozen[PATH_MAX];
	char raw[4096], message[4 * 4096];
};

static struct sbx_thread_slot answers = { .size = sizeof(struct answer) };

/* Appends to the answer's text (cut short, as an event's, where paths
 * fill it). */
static __attribute__((format(printf, 2, 3))) void add(struct answer *a, const char *fmt, ...)
{
	size_t len = strlen(a->raw);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->raw + len, sizeof(a->raw) - len, fmt, ap);
	va_end(ap);
}

/* ---- why ------------------------------------------------------------------ */

/* The rule of the scope that decides what path gets (the deepest applied
 * one at or above it, the wider mode at one path), or NULL. */
static const struct sbx_scope_rule *deciding(const struct heard *h, const char *path)
{
	const struct sbx_scope_rule *best = NULL;

	for (size_t i = 0; i < h->scope->nrules; i++) {
		const struct sbx_scope_rule *r = &h->scope->rules[i];

		if (h->left[i] || !sbx__path_covers(r->path, path))
			continue;
		if (!best || strlen(r->path) > strlen(best->path) ||
		    (!strcmp(r->path, best->path) && r->mode > best->mode))
			best = r;
	}
	return best;
}

/* The restricted path beneath the directory at path that made the compile
 * list it, or NULL where it was not listed. */
static const char *frozen_by(const struct sbx_ruleset *rs, const char *path)
{
	for (size_t i = 0; i < rs->ndirs; i++)
		if (rs->dirs[i].expanded && rs->dirs[i].because && !strcmp(rs->dirs[i].path, path))
			return rs->dirs[i].because;
	return NULL;
}

/* What rights r give a child at a path, and rights above, at the directory
 * that holds it. */
static int access_of(uint64_t r, uint64_t above, bool dir)
{
	uint64_t unlink = dir ? LANDLOCK_ACCESS_FS_REMOVE_DIR : LANDLOCK_ACCESS_FS_REMOVE_FILE;

	return (above & unlink ? SBX_ACCESS_UNLINK : 0) |
	       (r & LANDLOCK_ACCESS_FS_READ_FILE ? SBX_ACCESS_READ : 0) |
	       (r & LANDLOCK_ACCESS_FS_WRITE_FILE ? SBX_ACCESS_WRITE : 0) |
	       (r & LANDLOCK_ACCESS_FS_EXECUTE ? SBX_ACCESS_EXECUTE : 0) |
	       (dir && (r & LANDLOCK_ACCESS_FS_READ_DIR) ? SBX_ACCESS_LIST : 0) |
	       (dir && (r & LANDLOCK_ACCESS_FS_MAKE_REG) ? SBX_ACCESS_CREATE : 0) |
	       (dir && (r & LANDLOCK_ACCESS_FS_REMOVE_FILE) ? SBX_ACCESS_REMOVE : 0);
}

/* The access in words: "read, write, list", or "nothing". */
static void access_words(int access, char *out, size_t cap)
{
	static const char *const words[] = { "read",   "write",  "execute", "list",
		                             "create", "remove", "unlink" };
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < 7; i++)
		if (access & (1 << i))
			len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s",
			                        len ? ", " : "", words[i]);
	if (!len)
		snprintf(out, cap, "nothing");
}

static const char *mode_word(int mode)
{
	return mode == SBX_MODE_DENY ? "denial" : mode == SBX_MODE_READONLY ? "read-only path"
	                                                                    : "re-admission";
}

/* Listed by the compile: path itself (frozen), or the directory where it
 * would be made (unlisted). */
static void listed(const struct heard *h, const struct sbx_scope_rule *r, const char *at,
                   const char *because, sbx_explanation_t *out, struct answer *a)
{
	const struct sbx_scope_rule *br = deciding(h, because);
	const char *by = mode_word(br ? (int)br->mode : SBX_MODE_DENY);
	char lies[PATH_MAX + 64] = "";

	snprintf(a->rule, sizeof(a->rule), "%s", because);
	if (strcmp(at, h->path)) {
		out->reason = SBX_REASON_UNLISTED;
		out->access = 0;
		add(a, "not there, and it cannot be made: %s is frozen by the %s %s", at, by,
		    because);
		return;
	}
	out->reason = SBX_REASON_FROZEN;
	if (r)
		snprintf(lies, sizeof(lies), " (it lies in the %s %s)", mode_word((int)r->mode),
		         r->path);
	add(a, "frozen by the %s %s%s: its entries are granted one by one, and nothing can be "
	    "created or removed in it, whatever is re-admitted%s", by, because, lies,
	    out->access & SBX_ACCESS_LIST ? "" : "; it cannot be listed (SBX_SCOPE_LISTABLE)");
}

/* The reason from the scope's paths and the compile's listings. */
static void decide(const struct heard *h, const struct sbx_ruleset *rs, const char *at,
                   sbx_explanation_t *out, struct answer *a)
{
	const struct sbx_scope_rule *r = deciding(h, h->path);
	const char *because = frozen_by(rs, at);

	/* A path that is not there is not listed; but a denial says more. */
	if (because && (!strcmp(at, h->path) || (!out->exists && (!r || r->mode != SBX_MODE_DENY)))) {
		listed(h, r, at, because, out, a);
		return;
	}
	if (h->drop[0]) {
		out->reason = SBX_REASON_DROPPED;
		out->error = h->drop_error;
		snprintf(a->rule, sizeof(a->rule), "%s", h->drop);
		add(a, "dropped at the compile: %s", h->drop_message);
		return;
	}
	if (!r) {
		out->reason = SBX_REASON_GRANTED;
		add(a, "granted: nothing in the scope restricts it");
		return;
	}
	snprintf(a->rule, sizeof(a->rule), "%s", r->path);
	out->reason = r->mode == SBX_MODE_DENY       ? SBX_REASON_DENIED
	              : r->mode == SBX_MODE_READONLY ? SBX_REASON_READONLY
	                                             : SBX_REASON_READMITTED;
	add(a, "%s %s%s",
	    r->mode == SBX_MODE_DENY       ? "denied: in the denial"
	    : r->mode == SBX_MODE_READONLY ? "read-only: in"
	    : r->tmpdir                    ? "re-admitted: the temporary directory"
	                                   : "re-admitted: in the re-admission",
	    r->path,
	    r->mode == SBX_MODE_READONLY && (out->access & SBX_ACCESS_WRITE)
	    ? ", but a device that writes nowhere stays writable" : "");
}

/* What is said after the reason: the directory that holds path, frozen;
 * what the compile left out or clamped there. */
static void add_notes(const struct heard *h, const struct sbx_ruleset *rs, sbx_explanation_t *out,
                      struct answer *a)
{
	const char *because;

	if (out->exists && out->reason != SBX_REASON_FROZEN && out->reason != SBX_REASON_UNLISTED &&
	    strcmp(h->path, "/") && (because = frozen_by(rs, h->parent))) {
		snprintf(a->frozen, sizeof(a->frozen), "%s", because);
		out->frozen = a->frozen;
		if (out->access)
			add(a, "; it cannot be removed, renamed or replaced: %s is frozen by %s",
			    h->parent, because);
	}
	if (h->note[0])
		add(a, " (%s)", h->note);
}

/* ---- the call --------------------------------------------------------------- */

/* Where path would be made, for a path that is not there: its deepest
 * ancestor that is. */
static void existing_ancestor(const char *path, char *at)
{
	struct stat st;

	snprintf(at, PATH_MAX, "%s", path);
	while (strcmp(at, "/") && lstat(at, &st))
		sbx__path_pop(at);
}

/* Compiles a copy of the scope that tells what the compile did, keeps
 * nothing, and says nothing; the flags that make the spawn fail rather
 * than say (strict, require) are the caller's to read.  Whether a child
 * could hide is asked of a probe child, afresh (hidehere.c), not left to
 * a spawn's to find out. */
static int compile_heard(const struct sbx_scope *s, struct heard *h, struct sbx_ruleset *rs)
{
	struct sbx_scope copy;

	memcpy(&copy, s, sizeof(copy));
	copy.logger = event_heard;
	copy.logger_arg = h;
	copy.events = SBX_EVENTS_ALL;
	copy.trace = grant_heard;
	copy.trace_arg = h;
	copy.snapshot = copy.cache = NULL;
	copy.flags &= ~(SBX_SCOPE_STRICT | SBX_SCOPE_REQUIRE);
	return sbx__ruleset_compile(&copy, SBX_COMPILE_ONCE | SBX_COMPILE_PROBE, rs);
}

/* No child would be confined, or none would run: said without a compile. */
static bool outside(const struct sbx_scope *s, const struct sbx_ruleset *rs, int abi,
                    sbx_explanation_t *out, struct answer *a)
{
	if (abi == -ENOSYS || abi == -EOPNOTSUPP) {
		out->reason = s->flags & SBX_SCOPE_REQUIRE ? SBX_REASON_REFUSED : SBX_REASON_UNCONFINED;
		out->error = out->reason == SBX_REASON_REFUSED ? ENOTSUP : 0;
		add(a, out->error ? "no child runs: this kernel has no Landlock, and the scope requires "
		                    "it (SBX_SCOPE_REQUIRE)"
		                  : "unconfined: this kernel has no Landlock");
	} else if (rs && rs->confinement == SBX_OUTCOME_REFUSED) {
		out->reason = SBX_REASON_REFUSED;
		out->error = rs->error;
		add(a, "no child runs: %s (%s: %s)",
		    rs->refusal.what ? rs->refusal.what : SBX_REFUSED_LANDLOCK,
		    rs->refusal.call ? rs->refusal.call : "landlock",
		    rs->refusal.why ? rs->refusal.why : strerror(rs->error));
	} else if (abi < 0) {
		out->reason = SBX_REASON_REFUSED;
		out->error = -abi;
		add(a, "no child runs: Landlock refused (%s)", strerror(-abi));
	} else {
		return false;
	}
	if (out->reason == SBX_REASON_UNCONFINED)
		out->access = SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE |
		              SBX_ACCESS_UNLINK |
		              (out->exists != 1 ? SBX_ACCESS_LIST | SBX_ACCESS_CREATE | SBX_ACCESS_REMOVE
		                                : 0);
	return true;
}

/* Under SBX_SCOPE_STRICT a path left out fails every spawn (EINVAL). */
static bool strict_fails(const struct sbx_scope *s, const struct heard *h,
                         sbx_explanation_t *out, struct answer *a)
{
	for (size_t i = 0; (s->flags & SBX_SCOPE_STRICT) && i < s->nrules; i++)
		if (h->left[i]) {
			out->reason = SBX_REASON_REFUSED;
			out->error = EINVAL;
			out->access = 0;
			snprintf(a->rule, sizeof(a->rule), "%s", s->rules[i].path);
			add(a, "no child runs: SBX_SCOPE_STRICT, and the scope's %s %s is not applied",
			    mode_word((int)s->rules[i].mode), s->rules[i].path);
			return true;
		}
	return false;
}

/* A path in a sealed read-only path (the Landlock domain grants it, the
 * read-only mount takes every write away): what reads it. */
static bool sealed(const struct heard *h, const struct sbx_ruleset *rs, sbx_explanation_t *out,
                   struct answer *a)
{
	for (size_t i = 0; i < rs->ncovers; i++)
		if (rs->covers[i].ro && sbx__path_covers(rs->covers[i].path, h->path)) {
			out->access &= SBX_ACCESS_READ | SBX_ACCESS_EXECUTE | SBX_ACCESS_LIST;
			out->reason = SBX_REASON_READONLY;
			snprintf(a->rule, sizeof(a->rule), "%s", rs->covers[i].path);
			add(a, "read-only: in %s, sealed: bound on itself read-only (and nodev) in the "
			    "child's own mount namespace%s", a->rule,
			    strcmp(a->rule, h->path) ? "" : "; it cannot be removed or renamed there");
			return true;
		}
	return false;
}

/* A path a hidden denial covers (the Landlock domain grants it, the cover
 * takes it away): nothing, for the denial that hides it. */
static bool hidden(const struct heard *h, const struct sbx_ruleset *rs, sbx_explanation_t *out,
                   struct answer *a)
{
	const struct sbx_scope_rule *r = deciding(h, h->path);

	if (sbx__hide_bound(rs, h->path))
		return false; /* bound back in: granted as the scope says */
	for (size_t i = 0; i < rs->ncovers; i++)
		if (!rs->covers[i].ro && sbx__path_covers(rs->covers[i].path, h->path)) {
			out->access = 0;
			out->reason = SBX_REASON_DENIED;
			snprintf(a->rule, sizeof(a->rule), "%s",
			         r && r->mode == SBX_MODE_DENY ? r->path : rs->covers[i].path);
			add(a, "denied: in the denial %s, hidden: an empty read-only mount covers %s in "
			    "the child's own mount namespace", a->rule, rs->covers[i].path);
			/* Root reads past a mode: the cover lists to it the way
			 * to what is bound back in, and nothing more. */
			if (!strcmp(rs->covers[i].path, h->path) &&
			    (h->scope->ids ? h->scope->uid : geteuid()) == 0)
				for (size_t b = 0; b < rs->nbinds && !out->access; b++)
					if (sbx__path_covers(h->path, rs->binds[b].path)) {
						out->access = SBX_ACCESS_LIST;
						add(a, "; listed as root, it shows the way to what is bound "
						    "back into it (%s), and nothing else", rs->binds[b].path);
					}
			return true;
		}
	return sealed(h, rs, out, a);
}

/* A directory above a hidden denial is a mount point in the child's
 * namespace: it cannot be removed or renamed there. */
static void pinned(const struct heard *h, const struct sbx_ruleset *rs, sbx_explanation_t *out,
                   struct answer *a)
{
	for (size_t i = 0; i < rs->npins; i++)
		if (!strcmp(rs->pins[i], h->path)) {
			out->access &= ~SBX_ACCESS_UNLINK;
			add(a, "; it cannot be removed or renamed: it is a mount point in the child's own "
			    "mount namespace, above a hidden denial");
			return;
		}
	for (size_t i = 0; i < rs->nbinds; i++)
		if (!strcmp(rs->binds[i].path, h->path)) {
			out->access &= ~SBX_ACCESS_UNLINK;
			add(a, "; it cannot be removed or renamed: it is bound back into the cover of a "
			    "hidden denial, a mount point in the child's own mount namespace");
			return;
		}
}

/* The answer, once the compile is made. */
static void answer(const struct sbx_scope *s, struct heard *h, const struct sbx_ruleset *rs,
                   sbx_explanation_t *out, struct answer *a)
{
	char at[PATH_MAX], note[256];

	existing_ancestor(h->path, at);
	out->access = access_of(h->at, strcmp(h->path, "/") ? h->above : 0, out->exists != 1);
	if (strict_fails(s, h, out, a) || hidden(h, rs, out, a))
		return;
	decide(h, rs, at, out, a);
	pinned(h, rs, out, a);
	add_notes(h, rs, out, a);
	sbx__explain_caller(s, h->path, &out->access, note, sizeof(note));
	add(a, "%s", note);
	/* What it would get, made: what its directory gives. */
	if (!out->exists && out->reason != SBX_REASON_UNLISTED)
		add(a, "; not there: %s", frozen_by(rs, at) ? "it cannot be made" : "it may be made");
}

/* The message: what a child may do, in words, then why; one line,
 * whatever the names in it. */
static void finish(sbx_explanation_t *out, struct answer *a)
{
	char words[128];
	size_t n;

	access_words(out->access, words, sizeof(words));
	n = sbx__escape(words, a->message, sizeof(a->message));
	n += sbx__escape(": ", a->message + n, sizeof(a->message) - n);
	sbx__escape(a->raw, a->message + n, sizeof(a->message) - n);
	out->rule = a->rule[0] ? a->rule : NULL;
	out->message = a->message;
}

SBX_EXPORT int sbx_scopeattr_explain(const sbx_scopeattr_t *restrict scope,
                                     const char *restrict path, sbx_explanation_t *restrict out)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const struct sbx_scope *s = scope ? scope->__scope : NULL;
	struct sbx_ruleset rs;
	struct answer *a;
	struct heard *h;
	char resolved[PATH_MAX];
	struct stat st;
	int err, abi = sbx__landlock_abi();

	if (!s || !path || !out)
		return EINVAL;
	if (!*path)
		return ENOENT;
	if ((err = sbx__resolve(path, resolved)))
		return err;
	if (!(a = sbx__thread_slot(&answers)) || !(h = calloc(1, sizeof(*h))) ||
	    !(h->left = calloc(s->nrules + 1, sizeof(bool)))) {
		if (a)
			free(h);
		return ENOMEM;
	}
	*out = (sbx_explanation_t){ .exists = lstat(resolved, &st) ? 0 : S_ISDIR(st.st_mode) ? 2 : 1 };
	a->rule[0] = a->frozen[0] = a->raw[0] = '\0';
	h->path = resolved;
	h->scope = s;
	snprintf(h->parent, sizeof(h->parent), "%s", resolved);
	sbx__path_pop(h->parent);
	err = abi > 0 ? compile_heard(s, h, &rs) : 0;
	for (size_t i = 0; abi > 0 && !err && i < rs.nunapplied; i++)
		h->left[rs.unapplied[i]] = true;
	if (!err && !outside(s, abi > 0 ? &rs : NULL, abi, out, a))
		answer(s, h, &rs, out, a);
	if (abi > 0 && !err)
		sbx__ruleset_release(&rs);
	free(h->left);
	free(h);
	if (err)
		return err;
	finish(out, a);
	return 0;
}
