/* What the C library may lack, declared where it does (the replacements
 * are compat/<function>.c, chosen by AC_REPLACE_FUNCS). */
#ifndef SBX_COMPAT_COMPAT_H
#define SBX_COMPAT_COMPAT_H

#if !HAVE_DECL_STRCHRNUL
char *strchrnul(const char *s, int c);
#endif
#if !HAVE_DECL_STRERRORNAME_NP
/* glibc 2.32's: the name of an error number ("EACCES"), NULL if unknown. */
const char *strerrorname_np(int err);
#endif

#endif /* SBX_COMPAT_COMPAT_H */
