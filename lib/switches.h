/* SPDX-License-Identifier: MIT */
/* The switches of the environment convention: PREFIX_NAME sets the flag.
 * environ.c reads them; diag.c names them so in what a scope read from the
 * environment says. */
#ifndef SBX_SWITCHES_H
#define SBX_SWITCHES_H

#define SBX__SWITCHES(X)                                                                   \
	X("LISTABLE", SBX_SCOPE_LISTABLE) X("REQUIRE", SBX_SCOPE_REQUIRE)                   \
	X("STRICT", SBX_SCOPE_STRICT) X("HIDE", SBX_SCOPE_HIDE) X("EXPAND", SBX_SCOPE_EXPAND) \
	X("NO_NETWORK", SBX_SCOPE_NO_NETWORK)

#endif /* SBX_SWITCHES_H */
