/* SPDX-License-Identifier: MIT */
/* What the C library may lack, declared where it does (the replacements
 * are compat/<function>.c, chosen by AC_REPLACE_FUNCS).  A replacement is
 * named as the library's own (sbx__compat_), so that libsbxspawn.a defines
 * no name of the C library's for a program linked with it. */
#ifndef SBX_COMPAT_COMPAT_H
#define SBX_COMPAT_COMPAT_H

#if !HAVE_DECL_STRCHRNUL
#define strchrnul(s, c) sbx__compat_strchrnul(s, c)
char *strchrnul(const char *s, int c);
#endif
#if !HAVE_DECL_STRERRORNAME_NP
/* glibc 2.32's: the name of an error number ("EACCES"), NULL if unknown. */
#define strerrorname_np(err) sbx__compat_strerrorname_np(err)
const char *strerrorname_np(int err);
#endif

#endif /* SBX_COMPAT_COMPAT_H */
