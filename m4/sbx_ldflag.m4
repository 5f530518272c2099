# SPDX-License-Identifier: MIT
# SBX_CHECK_LDFLAG(FLAG, [ACTION-IF-ACCEPTED], [ACTION-IF-NOT])
# Whether the linker takes FLAG when linking a program with $CC.  GNU ld and
# lld take -z relro, -z now and --version-script; a linker that does not
# (macOS) gets the library without them.
AC_DEFUN([SBX_CHECK_LDFLAG], [
  AC_CACHE_CHECK([whether the linker accepts $1], [AS_TR_SH([sbx_cv_ldflag_$1])], [
    sbx_saved_LDFLAGS=$LDFLAGS
    LDFLAGS="$LDFLAGS $1"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AS_TR_SH([sbx_cv_ldflag_$1])=yes],
      [AS_TR_SH([sbx_cv_ldflag_$1])=no])
    LDFLAGS=$sbx_saved_LDFLAGS])
  AS_IF([test "x$AS_TR_SH([sbx_cv_ldflag_$1])" = xyes], [$2], [$3])])
