/* SPDX-License-Identifier: MIT */
/*
 * The grants a compile could not add: each one dropped is kept in the
 * ruleset's list (the outcome's) and said as an event naming the path and
 * why (a path left out for leading into a denial through a symlink is kept
 * there too, said when the tree was built); the entries that vanished
 * while a busy directory was compiled are also counted, for the one line
 * the default logger says instead.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/internal.h"
#include "lib/compiler.h"

static void note_vanished(struct compiler *cc, const char *name)
{
	size_t len = strlen(cc->vanished_names);

	if (!cc->vanished++)
		snprintf(cc->vanished_dir, sizeof(cc->vanished_dir), "%s", cc->path);
	else if (strcmp(cc->vanished_dir, cc->path))
		cc->vanished_elsewhere = true;
	if (cc->vanished <= 3)
		snprintf(cc->vanished_names + len, sizeof(cc->vanished_names) - len, "%s%s",
		         len ? ", " : "", name);
}

/* Up to three names of a list, then its count says the rest. */
static void note_name(char *names, size_t cap, size_t count, const char *name)
{
	size_t len = strlen(names);

	if (count <= 3)
		snprintf(names + len, cap - len, "%s%s", len ? ", " : "", name);
}

void sbx__drop_alias(struct compiler *cc, const char *same, const char *alias)
{
	sbx__event_quiet(cc->scope, SBX_EVENT_ALIAS, 0, same, alias,
	                 "%s is also %s (a hard link); that name is not granted", same, alias);
	if (!cc->aliases++) {
		snprintf(cc->alias_of, sizeof(cc->alias_of), "%s", same);
		snprintf(cc->alias_first, sizeof(cc->alias_first), "%s", alias);
	} else if (strcmp(cc->alias_of, same)) {
		cc->aliases_mixed = true; /* of several denied files */
	}
	note_name(cc->alias_names, sizeof(cc->alias_names), cc->aliases, alias);
}

static void note_linked(struct compiler *cc, const char *name)
{
	if (!cc->linked++)
		snprintf(cc->linked_dir, sizeof(cc->linked_dir), "%s", cc->path);
	else if (strcmp(cc->linked_dir, cc->path))
		cc->linked_elsewhere = true;
	note_name(cc->linked_names, sizeof(cc->linked_names), cc->linked, name);
}

/* The one line for what hard links left out: each drop and each other
 * name is an event of its own, for loggers (the default logger leaves
 * them unsaid); this one the default logger says, with no path (each
 * drop named its own: none is the directory's).  Where both are, the
 * other names' line is for loggers, and its words join the drops'. */
static void links_summary(struct compiler *cc)
{
	char aliased[PATH_MAX + 512] = "";

	if (cc->aliases) {
		snprintf(aliased, sizeof(aliased), "%s%s %s%s (%zu hard link%s): %s not granted",
		         cc->aliases_mixed ? "" : cc->alias_of,
		         cc->aliases_mixed ? "the denied files are also" : " is also", cc->alias_names,
		         cc->aliases > 3 ? ", ..." : "", cc->aliases, cc->aliases == 1 ? "" : "s",
		         cc->aliases == 1 ? "that name is" : "those names are");
		(cc->linked ? sbx__event_quiet : sbx__event)(cc->scope, SBX_EVENT_ALIAS, 0, cc->alias_of,
		                                              cc->alias_first, "%s", aliased);
	}
	if (cc->linked)
		sbx__event(cc->scope, SBX_EVENT_DROPPED, EMLINK, NULL, NULL,
		           "%s%s%zu %s of %s%s stay%s unreachable: %s other names (hard links) that a "
		           "denial may cover, so %s not granted: %s%s (the outcome lists them all)",
		           aliased, *aliased ? "; and " : "", cc->linked, cc->linked == 1 ? "entry" : "entries",
		           cc->linked_dir, cc->linked_elsewhere ? " and other directories" : "",
		           cc->linked == 1 ? "s" : "", cc->linked == 1 ? "it has" : "they have",
		           cc->linked == 1 ? "it is" : "they are", cc->linked_names, cc->linked > 3 ? ", ..." : "");
}

/* The one line for what vanished.  Printed by the default logger only for
 * a snapshot, which keeps them unreachable to every spawn: a compile for a
 * spawn is listed again by the next one (what vanished was never the
 * command's, and what replaced it is granted then), and a compile for one
 * exec has no next spawn but the next run. */
void sbx__drop_summary(struct compiler *cc)
{
	const struct sbx_ruleset *rs = cc->out;

	links_summary(cc);
	if (!cc->vanished)
		return;
	(rs->snapshot ? sbx__event : sbx__event_quiet)(
		cc->scope, SBX_EVENT_VANISHED, ENOENT, cc->vanished_dir, NULL,
		"%zu %s of %s%s vanished or changed while the scope was compiled: %s%s; %s",
		cc->vanished, cc->vanished == 1 ? "entry" : "entries", cc->vanished_dir,
		cc->vanished_elsewhere ? " and other directories" : "", cc->vanished_names,
		cc->vanished > 3 ? ", ..." : "",
		rs->snapshot ? "they stay unreachable to every spawn with this snapshot (compile "
		               "it again to take them in)"
		: rs->once   ? "this command cannot reach them (the outcome lists them all)"
		             : "the next spawn lists the directory again (the outcome lists them all)");
}

/* What each drop says: before the path, after it, and whether the error
 * number's text follows. */
static const struct {
	const char *before, *after;
	bool error;
} said[] = {
	[DROP_FAILED] = { "", " stays unreachable: its grant could not be added", true },
	[DROP_UNLISTED] = { "the entries of ", " stay unreachable: it could not be listed", true },
	[DROP_UNPLACED] = { "", " and what is below it stay unreachable: the mount table does not "
	                        "say where it is", false },
	[DROP_LINKED] = { "", " stays unreachable: it has other names (hard links) that a denial "
	                      "may cover, so it is not granted", false },
	[DROP_ENCLOSED] = { "the entries of ", " keep only what its own rule gives (no writing): "
	                                       "the Landlock domain this process runs in forbids "
	                                       "listing it (make the enclosing scope listable: "
	                                       "SBX_SCOPE_LISTABLE)", false },
	[DROP_SOCKET] = { "the unix socket ", " stays unreachable: its grant could not be added "
	                                      "(it must be there, a socket or a directory, when "
	                                      "the scope is compiled)", true },
	[DROP_CHANGED] = { "", " stays unreachable: it changed while the scope was compiled "
	                       "(renamed, replaced or mounted on), so it is not granted", false },
	[DROP_LAYERS] = { "", " stays unreachable: it is an overlay, a filesystem mounted from a "
	                      "directory or a loop-mounted image, whose layers or image the system "
	                      "names by a relative path, through a symlink, as deleted, on an "
	                      "overlay, from another root (a chroot's, or where one cannot be ruled "
	                      "out), or behind a device no "
	                      "/sys here describes, so that "
	                      "whether it shows a restricted path cannot be told", false },
};

/* Keeps full in the ruleset's list of what was dropped: false where there
 * was no memory for it (the compile fails). */
static bool keep_dropped(struct compiler *cc, const char *full)
{
	struct sbx_ruleset *rs = cc->out;
	char **grown;

	if (!(grown = sbx__grow(rs->dropped, &cc->dropped_cap, rs->ndropped + 1,
	                        sizeof(*rs->dropped))) ||
	    !(rs->dropped = grown, grown[rs->ndropped] = strdup(full))) {
		cc->err = ENOMEM;
		return false;
	}
	rs->ndropped++;
	return true;
}

/* Where a path left out for leading into a denial through a symlink led:
 * a compile would leave it out again. */
void sbx__drop_left_out(struct compiler *cc, const char *path)
{
	if (keep_dropped(cc, path))
		cc->out->lasting_drops = true;
}

void sbx__drop(struct compiler *cc, const char *name, int err, enum drop_reason why)
{
	struct sbx_ruleset *rs = cc->out;
	char full[PATH_MAX + NAME_MAX + 2];
	const char *detail = NULL;

	snprintf(full, sizeof(full), "%s%s%s", cc->path,
	         *cc->path && strcmp(cc->path, "/") && *name ? "/" : "", name);
	if (!keep_dropped(cc, full))
		return;
	/* An entry of a listed directory that vanished, or changed, between
	 * listing and opening is one the directory no longer holds as listed:
	 * listed again at the next reuse (its times moved), what it holds now
	 * is judged afresh.  Every other drop would come again. */
	if (!cc->transient)
		rs->lasting_drops = true;
	/* Each is an event; those of a busy directory are also counted, for
	 * the one line the default logger says instead (sbx__drop_summary). */
	if ((why == DROP_FAILED && err == ENOENT) || why == DROP_CHANGED)
		note_vanished(cc, name);
	if (why == DROP_LINKED)
		note_linked(cc, name);
	/* Where it is not, the mount table says why: a chroot's (rootmount.c). */
	if (why == DROP_UNPLACED)
		detail = cc->mounts.root_why;
	(why == DROP_LINKED ? sbx__event_quiet : sbx__event)(
		cc->scope, SBX_EVENT_DROPPED, err, full, NULL, "%s%s%s%s%s%s", said[why].before, full,
		said[why].after, said[why].error || detail ? " (" : "",
		detail ? detail : said[why].error ? strerror(err) : "",
		said[why].error || detail ? ")" : "");
}
