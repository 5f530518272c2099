/* SPDX-License-Identifier: MIT */
/*
 * sbxrun's options read from argv: a name spelt whole or by a prefix of
 * one option alone, its argument after "=" or as the next word, and the
 * handler the table (options.c) names for it.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbxspawn/sbxspawn.h"
#include "tools/options.h"
#include "tools/said.h"

static bool has_prefix(const struct sbxrun_option *opt, const char *prefix, size_t len)
{
	return strncmp(opt->name, prefix, len) == 0;
}

static _Noreturn void ambiguous(const char *prefix, size_t len)
{
	/* Room for every name in the table, each with its "--" and ", ". */
	char names[1024];
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < sbxrun_noptions && used < sizeof(names); i++)
		if (has_prefix(&sbxrun_options[i], prefix, len))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s--%s",
			                         used ? ", " : "", sbxrun_options[i].name);
	sbxrun_fail("option '--%.*s' is ambiguous: %s", (int)len, prefix, names);
}

/* The option that name (len characters, without its "--") means: the one
 * spelt so, or else the only one it is a prefix of. */
static const struct sbxrun_option *find_option(const char *arg, const char *name, size_t len)
{
	const struct sbxrun_option *found = NULL;
	int candidates = 0;

	for (size_t i = 0; len > 0 && i < sbxrun_noptions; i++) {
		if (!has_prefix(&sbxrun_options[i], name, len))
			continue;
		if (sbxrun_options[i].name[len] == '\0')
			return &sbxrun_options[i];
		found = &sbxrun_options[i];
		candidates++;
	}
	if (candidates > 1)
		ambiguous(name, len);
	if (!found)
		sbxrun_fail("unknown option '%s'", arg);
	return found;
}

/* Applies the option at argv[i], "--name" or "--name=value"; an option that
 * takes an argument and has no "=" takes the next one, whatever it looks
 * like.  Returns the index of the argument after those used. */
int sbxrun_option_at(struct settings *set, int argc, char **argv, int i)
{
	const char *name = argv[i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct sbxrun_option *opt = find_option(argv[i], name, len);
	const char *arg = NULL;
	char *joined = NULL;
	int err;

	i++;
	if (opt->takes_arg == 2) {
		/* NAME VALUE: two arguments, handed on as one NAME=VALUE */
		if (eq || i + 1 >= argc || strchr(argv[i], '=') || !*argv[i])
			sbxrun_fail("--%s takes two arguments, NAME (without '=') and VALUE", opt->name);
		if (!(arg = joined = malloc(strlen(argv[i]) + strlen(argv[i + 1]) + 2)))
			sbxrun_fail("%s", strerror(ENOMEM));
		strcpy(stpcpy(stpcpy(joined, argv[i]), "="), argv[i + 1]);
		i += 2;
	} else if (opt->takes_arg) {
		if (eq)
			arg = eq + 1;
		else if (i < argc)
			arg = argv[i++];
		else
			sbxrun_fail("option '--%s' requires an argument", opt->name);
	} else if (eq) {
		sbxrun_fail("option '--%s' takes no argument", opt->name);
	}
	if ((err = opt->handle(set, opt->name, arg)) && arg)
		sbxrun_fail("--%s %s: %s", opt->name, arg, sbx_strerror(err));
	if (err)
		sbxrun_fail("--%s: %s", opt->name, sbx_strerror(err));
	free(joined);
	return i;
}
