/* SPDX-License-Identifier: MIT */
/*
 * libsbxspawn: posix_spawn with a filesystem boundary.
 *
 * sbx_posix_spawn() behaves exactly like posix_spawn(3) and additionally
 * takes a scope: paths the child may not reach (denials), paths re-admitted
 * inside a denial, and read-only paths.  The scope is compiled into a Linux
 * Landlock ruleset in the parent and applied in the child after the file
 * actions, just before exec.
 *
 * Every function returns 0 or a positive error number and leaves errno as
 * it found it, like posix_spawn(3), but sbx_system(), which returns a wait
 * status and sets errno, like system(3).
 */
#ifndef SBXSPAWN_SBXSPAWN_H
#define SBXSPAWN_SBXSPAWN_H

#include <spawn.h>
#include <sys/types.h>

struct rlimit; /* <sys/resource.h> */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__cplusplus) || !defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L
#define SBX_RESTRICT
#else
#define SBX_RESTRICT restrict
#endif

#define SBX_VERSION_MAJOR 0
#define SBX_VERSION_MINOR 5

/* ------------------------------------------------------------------------
 * Error numbers and exit status
 * --------------------------------------------------------------------- */

/* Returned when the confinement the scope asks for could not be applied in
 * the child (Landlock present and refusing the ruleset, or a control such
 * as a change of ids failing): the program did not run; and by
 * sbx_scopeattr_compile() where every spawn would be refused.  Outside the
 * range of the C library's errno values. */
#define SBX_EREFUSED 2001

/* Exit status of a child whose confinement was refused (after one line on
 * its standard error).  Deliberately not 127, which means "command not
 * found"; 125 is the env(1) and timeout(1) status for "the launcher itself
 * failed". */
#define SBX_EXIT_REFUSED 125

/* Describes err: the library's own numbers (SBX_EREFUSED), else
 * strerror(3)'s text.  strerror(SBX_EREFUSED) says "Unknown error". */
const char *sbx_strerror(int err);

/* ------------------------------------------------------------------------
 * File actions: sbx_ mirrors of posix_spawn_file_actions_*(3)
 * --------------------------------------------------------------------- */

struct sbx_file_action;

typedef struct sbx_file_actions {
	int __allocated;
	int __used;
	struct sbx_file_action *__actions;
	int __reserved[8];
} sbx_file_actions_t;

int sbx_file_actions_init(sbx_file_actions_t *fa);
int sbx_file_actions_destroy(sbx_file_actions_t *fa);
int sbx_file_actions_addopen(sbx_file_actions_t *SBX_RESTRICT fa, int fd,
                             const char *SBX_RESTRICT path, int oflag, mode_t mode);
int sbx_file_actions_addclose(sbx_file_actions_t *fa, int fd);
int sbx_file_actions_adddup2(sbx_file_actions_t *fa, int fd, int newfd);
int sbx_file_actions_addchdir(sbx_file_actions_t *SBX_RESTRICT fa,
                              const char *SBX_RESTRICT path);
int sbx_file_actions_addfchdir(sbx_file_actions_t *fa, int fd);
int sbx_file_actions_addclosefrom(sbx_file_actions_t *fa, int from);
int sbx_file_actions_addtcsetpgrp(sbx_file_actions_t *fa, int tcfd);

/* ------------------------------------------------------------------------
 * The scope attribute
 * --------------------------------------------------------------------- */

struct sbx_scope;

typedef struct sbx_scopeattr {
	struct sbx_scope *__scope;
	void *__reserved[7];
} sbx_scopeattr_t;

/* Flags for sbx_scopeattr_setflags(). */
#define SBX_SCOPE_REQUIRE 0x1 /* no Landlock in the kernel: fail with ENOTSUP */
#define SBX_SCOPE_STRICT 0x2  /* a control below the ABI can't enforce: refuse, don't warn */
/* Controls beyond the filesystem, each enforced where the ABI allows it
 * (else a warning, or a refusal with SBX_SCOPE_STRICT). */
#define SBX_SCOPE_NO_TCP_BIND 0x4       /* bind(2) on TCP denied but on allowed ports (ABI 4) */
#define SBX_SCOPE_NO_TCP_CONNECT 0x8    /* connect(2) on TCP denied but to allowed ports (ABI 4) */
#define SBX_SCOPE_NO_ABSTRACT_UNIX 0x10 /* abstract unix sockets outside the child's domain (ABI 6) */
#define SBX_SCOPE_NO_SIGNAL 0x20        /* signals to processes outside the child's domain (ABI 6) */
#define SBX_SCOPE_NO_UNIX_CONNECT 0x40  /* pathname unix sockets outside granted paths (ABI 9) */
#define SBX_SCOPE_NO_IO_URING 0x80      /* io_uring_setup/enter/register fail with EPERM (seccomp) */
/* Privilege: Landlock confines data only for an unprivileged child. */
#define SBX_SCOPE_DROP_CAPS 0x100       /* every capability dropped before exec, for good */
/* Expanded directories (the ancestors of a restricted path) stay listable:
 * the names beneath a denial become visible, never their contents. */
#define SBX_SCOPE_LISTABLE 0x200
/* What every scoped child is refused unless the scope keeps it (seccomp):
 * keyrings, which a child shares with its caller whatever its user ID ... */
#define SBX_SCOPE_SHARE_KEYRINGS 0x400
/* ... and the limits, priorities, CPU affinity, I/O priority and scheduling
 * of any process but the caller's own by pid 0 (the kernel names threads,
 * children and the caller alike by number: all are refused). */
#define SBX_SCOPE_TUNE_PROCESSES 0x800
/* The kernel logs every access the child is denied to the audit log, after
 * its exec too (Landlock ABI 7; by default a domain logs nothing past the
 * exec of the process that made it, and a child is confined before its
 * exec).  Below ABI 7, a warning; the rest of the scope applies. */
#define SBX_SCOPE_LOG_DENIALS 0x1000
/* How a denial is made (sbx_posix_spawn(3), "Hidden and expanded denials").
 * By default each denial is hidden where the child can have a mount
 * namespace of its own: covered there by an empty mount, under the
 * Landlock domain, and nothing above it freezes; elsewhere it is expanded
 * (every directory above it frozen).  The two flags force one way: every
 * denial hidden, or nothing runs (EINVAL, after an SBX_EVENT_HIDING event
 * saying why); every denial expanded, no mount namespace made. */
#define SBX_SCOPE_HIDE 0x2000
#define SBX_SCOPE_EXPAND 0x4000
/* No network (seccomp, x86_64 and aarch64): socket(2) and socketpair(2)
 * of every family but AF_UNIX fail with EACCES (UDP, raw and packet
 * sockets, netlink, ...), io_uring with them.  TCP to a port
 * sbx_scopeattr_allowtcp() names stays: inet stream sockets are made, and
 * Landlock's TCP rights (ABI 4) hold them to the ports named; ports, not
 * hosts.  A socket the child inherits is the caller's to close. */
#define SBX_SCOPE_NO_NETWORK 0x8000
/* The child is sent SIGKILL when the thread that spawned it ends, from
 * before its exec (prctl(2)'s PR_SET_PDEATHSIG, kept across the ids the
 * scope sets); where that thread has ended already, nothing runs.  With
 * sbx_execve(), the calling process, when its parent ends.  Not a
 * confinement: a scope with only this flag is empty, and it holds with no
 * Landlock too (the portable build refuses it). */
#define SBX_SCOPE_DIE_WITH_PARENT 0x10000

/* Access for sbx_scopeattr_allowtcp(). */
#define SBX_TCP_BIND 0x1
#define SBX_TCP_CONNECT 0x2

int sbx_scopeattr_init(sbx_scopeattr_t *scope);
int sbx_scopeattr_destroy(sbx_scopeattr_t *scope);
/* No access at all beneath path (the rights Landlock mediates: metadata
 * such as chmod, chown and utimes is not). */
int sbx_scopeattr_adddeny(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT path);
/* Full access beneath path, winning over any denial above it. */
int sbx_scopeattr_addallow(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT path);
/* Read and execute beneath path, no writes. */
int sbx_scopeattr_addreadonly(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT path);

/* Modes for sbx_scopeattr_addlist(). */
#define SBX_DENY 1
#define SBX_ALLOW 2
#define SBX_READONLY 3

/* Adds every path of list, ':'-separated as in PATH (empty items skipped),
 * as adddeny, addallow or addreadonly would: all or nothing.  On an error
 * none of the list is added, and an SBX_EVENT_LIST event names the item. */
int sbx_scopeattr_addlist(sbx_scopeattr_t *SBX_RESTRICT scope, int mode,
                          const char *SBX_RESTRICT list);
/* The child's environment, a copy of the envp the caller passes (never the
 * caller's array), changed by each call in turn; for every spawn, exec and
 * sbx_system with the scope:
 *   SBX_ENV_UNSET  arg: a name, an fnmatch(3) pattern ("AWS_*"), or
 *                  SBX_ENV_SECRETS: names that hold TOKEN, SECRET, PASSWORD,
 *                  PASSWD, KEY, CREDENTIAL or AUTH (case aside), and
 *                  SSH_AUTH_SOCK, SSH_AGENT_PID, GPG_AGENT_INFO: a
 *                  convenience, not a guarantee;
 *   SBX_ENV_SET    arg: NAME=VALUE, added (the caller's NAME replaced);
 *   SBX_ENV_CLEAR  arg NULL: none of the caller's variables, only those
 *                  set (and the temporary directory's TMPDIR).
 * EINVAL for a name that is empty or holds '='. */
#define SBX_ENV_UNSET 1
#define SBX_ENV_SET 2
#define SBX_ENV_CLEAR 3
#define SBX_ENV_SECRETS "@secrets"
int sbx_scopeattr_addenv(sbx_scopeattr_t *SBX_RESTRICT scope, int how,
                         const char *SBX_RESTRICT arg);
/* A temporary directory for the child: dir (an existing directory) is
 * re-admitted with full access, and the child's environment has
 * TMPDIR=dir, in a copy of the envp the caller passed (as the changes of
 * sbx_scopeattr_addenv are made).  dir NULL removes it.  On an error
 * the old one stays, and an SBX_EVENT_LIST event names dir. */
int sbx_scopeattr_settmpdir(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT dir);

/* What sbx_scopeattr_setlabel() names: the lists of each mode, and ... */
#define SBX_TMPDIR 4 /* ... the temporary directory */
/* The words the events use for what the caller gave under what (SBX_DENY,
 * SBX_ALLOW, SBX_READONLY: the lists of sbx_scopeattr_addlist(); SBX_TMPDIR)
 * where an item of it cannot be added: the caller's own name for it (a
 * configuration key, an option), at most 100 bytes; NULL: the library's
 * words ("the deny list", "the temporary directory"). */
int sbx_scopeattr_setlabel(sbx_scopeattr_t *SBX_RESTRICT scope, int what,
                           const char *SBX_RESTRICT label);
int sbx_scopeattr_setflags(sbx_scopeattr_t *scope, int flags);
int sbx_scopeattr_getflags(const sbx_scopeattr_t *SBX_RESTRICT scope, int *SBX_RESTRICT flags);
/* Allows TCP access (SBX_TCP_BIND, SBX_TCP_CONNECT) on one port and denies
 * it on every other: sets the matching SBX_SCOPE_NO_TCP_* flag. */
int sbx_scopeattr_allowtcp(sbx_scopeattr_t *scope, int access, unsigned port);
/* Allows connecting to the unix socket at path, or to every one beneath
 * the directory path, and to no other bound to a path (Landlock ABI 9):
 * sets SBX_SCOPE_NO_UNIX_CONNECT.  With SBX_SCOPE_NO_NETWORK, a local
 * proxy's socket. */
int sbx_scopeattr_allowsocket(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT path);
/* Sets the resource limit (RLIMIT_*) the child runs under, in the child
 * before its exec, first of all its confinement; a NULL limit removes it.
 * getrlimit says ENOENT for a resource the scope does not set. */
int sbx_scopeattr_setrlimit(sbx_scopeattr_t *SBX_RESTRICT scope, int resource,
                            const struct rlimit *SBX_RESTRICT limit);
int sbx_scopeattr_getrlimit(const sbx_scopeattr_t *SBX_RESTRICT scope, int resource,
                            struct rlimit *SBX_RESTRICT limit);
/* Places the child in the cgroup v2 directory dirfd names (the caller's
 * descriptor, open until the last spawn): joined in the child before its
 * exec, first of all its confinement; -1 removes it.  getcgroup gives -1
 * where none is set. */
int sbx_scopeattr_setcgroup(sbx_scopeattr_t *scope, int dirfd);
int sbx_scopeattr_getcgroup(const sbx_scopeattr_t *SBX_RESTRICT scope, int *SBX_RESTRICT dirfd);
/* Runs the child under uid and gid, supplementary groups cleared (the
 * caller needs the privilege to change them), and, for a uid other than 0,
 * with none of the caller's capabilities.  uid (uid_t)-1 removes it. */
int sbx_scopeattr_setids(sbx_scopeattr_t *scope, uid_t uid, gid_t gid);
int sbx_scopeattr_getids(const sbx_scopeattr_t *SBX_RESTRICT scope, uid_t *SBX_RESTRICT uid,
                         gid_t *SBX_RESTRICT gid);
/* Enforce no more than Landlock ABI abi would (1..9); 0 removes the cap. */
int sbx_scopeattr_setabi(sbx_scopeattr_t *scope, int abi);
int sbx_scopeattr_getabi(const sbx_scopeattr_t *SBX_RESTRICT scope, int *SBX_RESTRICT abi);

/* Compile once, spawn many: takes a snapshot of the filesystem now, which
 * every later spawn with this scope applies after a check (a statx per
 * directory it visited): a directory that changed is listed again; an
 * entry created there since stays unreachable (a snapshot grants nothing
 * new), one that held a grant and went makes the spawn compile anew.
 * Changing the scope discards the snapshot; calling this again takes a new
 * one.  SBX_EREFUSED where every spawn with the scope would be refused
 * (after an SBX_EVENT_REFUSED event saying why and what to do). */
int sbx_scopeattr_compile(sbx_scopeattr_t *scope);

/* Whether scope asks nothing of a child (*empty 1): no path, no temporary
 * directory, no control, no TCP port, no ids, no dropped capabilities.
 * SBX_SCOPE_REQUIRE, SBX_SCOPE_STRICT, SBX_SCOPE_LISTABLE, an ABI cap, the
 * logger and the events change only how the rest is applied and said, and
 * do not count.  A program passes NULL instead of an empty scope. */
int sbx_scopeattr_isempty(const sbx_scopeattr_t *SBX_RESTRICT scope, int *SBX_RESTRICT empty);

/* ------------------------------------------------------------------------
 * Why a path is reachable, or not
 * --------------------------------------------------------------------- */

/* What a child may do at a path (sbx_explanation_t.access): to a file,
 * read, write and execute it; in a directory, the same to the files beneath
 * it, and list it, create entries in it and remove entries from it; and to
 * either, remove it from the directory that holds it (unlink, rename). */
#define SBX_ACCESS_READ 0x1
#define SBX_ACCESS_WRITE 0x2
#define SBX_ACCESS_EXECUTE 0x4
#define SBX_ACCESS_LIST 0x8
#define SBX_ACCESS_CREATE 0x10
#define SBX_ACCESS_REMOVE 0x20
#define SBX_ACCESS_UNLINK 0x40

/* What decides it (sbx_explanation_t.reason); `rule' is the path named. */
enum sbx_reason {
	SBX_REASON_GRANTED = 1, /* nothing in the scope restricts it */
	SBX_REASON_DENIED,      /* beneath the denial rule */
	SBX_REASON_READMITTED,  /* beneath the re-admission rule (a temporary directory too) */
	SBX_REASON_READONLY,    /* beneath the read-only path rule */
	SBX_REASON_FROZEN,      /* on the way to the restricted path rule: listed, its entries
	                           granted one by one, nothing created or removed in it */
	SBX_REASON_UNLISTED,    /* not among the entries of a frozen directory (frozen): not
	                           there, so it cannot be made, or not granted */
	SBX_REASON_DROPPED,     /* its grant was dropped at the compile (rule: the path dropped;
	                           error, and the message, say why) */
	SBX_REASON_UNCONFINED,  /* a child would run unconfined: it may do everything */
	SBX_REASON_REFUSED      /* no child would run: the confinement would be refused (error) */
};

typedef struct sbx_explanation {
	int access;          /* SBX_ACCESS_*: what a child may do there */
	int reason;          /* enum sbx_reason */
	const char *rule;    /* the path of the scope that decides it, or NULL */
	const char *frozen;  /* the restricted path that freezes the directory holding it (it
	                        cannot be removed, renamed or replaced there), or NULL */
	int error;           /* why, for SBX_REASON_DROPPED and SBX_REASON_REFUSED; else 0 */
	int exists;          /* 1 where path is there, 2 where it is a directory, else 0 */
	const char *message; /* one line: what a child may do, and why */
	int __reserved[8];
} sbx_explanation_t;

/* What a child spawned now with scope may do at path (resolved as
 * sbx_scopeattr_adddeny resolves it), and which path of the scope decides
 * it.  The answer is a compile's: the scope is compiled for it, against the
 * running kernel (nothing is kept, no event delivered).  out's strings stay
 * valid until the calling thread's next call. */
int sbx_scopeattr_explain(const sbx_scopeattr_t *SBX_RESTRICT scope,
                          const char *SBX_RESTRICT path, sbx_explanation_t *SBX_RESTRICT out);

/* ------------------------------------------------------------------------
 * The environment convention: one set of variables for every program
 * --------------------------------------------------------------------- */

/* Configures scope from the variables PREFIX_DENY, PREFIX_ALLOW,
 * PREFIX_READONLY (lists, as sbx_scopeattr_addlist), PREFIX_TMPDIR, and
 * the switches PREFIX_LISTABLE, PREFIX_REQUIRE, PREFIX_STRICT, PREFIX_QUIET
 * (on when set to anything but "" or "0") of envp (NULL: environ).  All or
 * nothing: an error leaves scope as it was, after an SBX_EVENT_ENV event
 * naming the variable.  *configured (may be NULL) says whether a path or a
 * temporary directory was configured: else pass a NULL scope.  The
 * environment is not changed (sbx_env_unset does it). */
int sbx_scopeattr_readenv(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT prefix,
                          char *const envp[], int *SBX_RESTRICT configured);
/* unsetenv(3)s each variable of the convention under prefix, so that the
 * commands a program runs (another run of itself) do not read them again.
 * Not thread-safe, as unsetenv is not. */
int sbx_env_unset(const char *prefix);
/* The scope a program reads from its environment, in one call at its
 * start: scope initialized and configured from environ under prefix
 * (sbx_scopeattr_readenv), checked by a compile that keeps nothing (a
 * scope under which no command could run is an error now, said in an
 * SBX_EVENT_ENV event), and the variables unset for the commands it runs
 * (sbx_env_unset).  0 with *configured saying whether the variables made
 * a scope (else spawn with a NULL scope); scope is to be destroyed either
 * way.  After an error nothing is to be released (a destroy is safe). */
int sbx_scopeattr_fromenv(sbx_scopeattr_t *SBX_RESTRICT scope, const char *SBX_RESTRICT prefix,
                          int *SBX_RESTRICT configured);

/* ------------------------------------------------------------------------
 * Events: what the library has to say about a spawn, as data
 * --------------------------------------------------------------------- */

enum sbx_event_kind {
	SBX_EVENT_DROPPED = 1,   /* a grant could not be added: path stays unreachable */
	SBX_EVENT_UNCONFINED,    /* the kernel has no Landlock: running unconfined (once per process) */
	SBX_EVENT_IGNORED_DENY,  /* a denial of / or of the C runtime was not applied */
	SBX_EVENT_ALIAS,         /* path2 is a second name (bind mount) of denied path */
	SBX_EVENT_REFUSED,       /* Landlock refused the ruleset: the program did not run */
	SBX_EVENT_EXPAND,        /* debug: path was listed and its siblings are being granted */
	SBX_EVENT_DOWNGRADED,    /* a requested control is beyond this kernel: path names it */
	SBX_EVENT_PRIVILEGED,    /* the child keeps uid 0 or capabilities (once per process) */
	SBX_EVENT_FROZEN,        /* the scope freezes TMPDIR, the working or the home
	                            directory: path */
	SBX_EVENT_FAILED,        /* the scope could not be compiled at path: nothing ran */
	SBX_EVENT_VANISHED,      /* how many entries (path: the first directory) vanished or
	                            changed while the scope was compiled; each was an
	                            SBX_EVENT_DROPPED with error ENOENT or ESTALE */
	SBX_EVENT_IGNORED_LINK,  /* a re-admitting or read-only path (path, as written) led
	                            through a symlink into a denial (path2) and was not applied */
	SBX_EVENT_LIST,          /* an item of sbx_scopeattr_addlist() (path) could not be
	                            added: nothing of the list was */
	SBX_EVENT_ENV,           /* a variable of sbx_scopeattr_readenv() (path: its name;
	                            path2: the item) could not be applied: nothing of the
	                            environment was */
	SBX_EVENT_HIDING         /* which way the denials take (once per scope, and where
	                            it changes): hidden in the child's own mount namespace,
	                            or expanded (path: a denial expanded, and why) */
};

/* Masks for sbx_scopeattr_setevents(). */
#define SBX_EVENT_BIT(kind) (1u << (kind))
#define SBX_EVENTS_ALL 0xffffffffu
/* Only what keeps a command from running: a refusal, a failed compile, a
 * list or a variable that could not be applied (PREFIX_QUIET). */
#define SBX_EVENTS_QUIET (SBX_EVENT_BIT(SBX_EVENT_REFUSED) | SBX_EVENT_BIT(SBX_EVENT_FAILED) | \
                          SBX_EVENT_BIT(SBX_EVENT_LIST) | SBX_EVENT_BIT(SBX_EVENT_ENV))

typedef struct sbx_event {
	int kind;            /* enum sbx_event_kind */
	int error;           /* errno behind the event, or 0 */
	const char *path;    /* the path concerned, or NULL */
	const char *path2;   /* a second path (an alias), or NULL */
	const char *message; /* one human-readable line, without newline */
} sbx_event_t;

typedef void (*sbx_logger_t)(const sbx_event_t *event, void *arg);

/* The default logger: one line per event on stderr, debug events ignored;
 * entries that vanished or changed while compiling are said in the one
 * SBX_EVENT_VANISHED line rather than each in its own. */
void sbx_logger_default(const sbx_event_t *event, void *arg);
/* logger NULL restores the default logger. */
int sbx_scopeattr_setlogger(sbx_scopeattr_t *scope, sbx_logger_t logger, void *arg);
/* Which events reach the logger (the default one included): the kinds whose
 * SBX_EVENT_BIT(kind) is set in mask; SBX_EVENTS_ALL by default.  0: none
 * is delivered (the outcome still records everything). */
int sbx_scopeattr_setevents(sbx_scopeattr_t *scope, unsigned mask);
int sbx_scopeattr_getevents(const sbx_scopeattr_t *SBX_RESTRICT scope,
                            unsigned *SBX_RESTRICT mask);

/* ------------------------------------------------------------------------
 * Outcome of the last spawn made by the calling thread
 * --------------------------------------------------------------------- */

enum sbx_confinement {
	SBX_OUTCOME_NONE = 0,   /* no scope, or the spawn failed before it was compiled */
	SBX_OUTCOME_CONFINED,   /* the whole ruleset was applied */
	SBX_OUTCOME_NARROWED,   /* applied with some grants dropped (narrower than asked) */
	SBX_OUTCOME_UNCONFINED, /* the kernel has no Landlock: the program ran unconfined */
	SBX_OUTCOME_REFUSED     /* Landlock refused the ruleset: the program did not run */
};

enum sbx_stage {
	SBX_STAGE_NONE = 0,    /* the spawn did not fail */
	SBX_STAGE_SETUP,       /* in the parent, before the child existed */
	SBX_STAGE_ATTR,        /* applying a posix_spawnattr_t setting */
	SBX_STAGE_FILE_ACTION, /* file action number `action' */
	SBX_STAGE_CONFINE,     /* applying the ruleset */
	SBX_STAGE_EXEC         /* exec of the program */
};

typedef struct sbx_outcome {
	int confinement;     /* enum sbx_confinement */
	int abi;             /* Landlock ABI the ruleset was built for, 0 if none */
	int kernel_abi;      /* Landlock ABI of the running kernel, 0 if none */
	unsigned rules;      /* grants in the applied ruleset */
	unsigned dropped;    /* grants dropped: dropped_paths[0 .. dropped-1] */
	const char *const *dropped_paths; /* valid until this thread's next spawn */
	int stage;           /* enum sbx_stage where the spawn failed */
	int action;          /* index of the failing file action, else -1 */
	int error;           /* errno of the failure or refusal, else 0 */
	int controls;        /* the SBX_SCOPE_NO_* flags that were enforced, in full, and
	                        SBX_SCOPE_LOG_DENIALS where the kernel logs */
	int privilege;       /* SBX_PRIVILEGE_*: what the child kept */
	unsigned hidden;     /* denials (and their second names) hidden in the child's own
	                        mount namespace */
	unsigned expanded;   /* denials expanded (the directories above them frozen) */
	int __reserved[5];
} sbx_outcome_t;

/* What a confined child kept of its parent's privilege (sbx_outcome_t). */
#define SBX_PRIVILEGE_ROOT 0x1 /* it runs as uid 0 */
#define SBX_PRIVILEGE_CAPS 0x2 /* it has, or regains at exec, capabilities */

int sbx_outcome_get(sbx_outcome_t *outcome);
/* In words: "confined", "narrowed", ...; "file action", "exec", ...  An
 * unknown value gives "unknown". */
const char *sbx_outcome_name(int confinement);
const char *sbx_stage_name(int stage);

/* ------------------------------------------------------------------------
 * Spawning
 * --------------------------------------------------------------------- */

int sbx_posix_spawn(pid_t *SBX_RESTRICT pid, const char *SBX_RESTRICT path,
                    const sbx_file_actions_t *file_actions,
                    const posix_spawnattr_t *SBX_RESTRICT attrp,
                    const sbx_scopeattr_t *SBX_RESTRICT scope,
                    char *const argv[SBX_RESTRICT], char *const envp[SBX_RESTRICT]);

int sbx_posix_spawnp(pid_t *SBX_RESTRICT pid, const char *SBX_RESTRICT file,
                     const sbx_file_actions_t *file_actions,
                     const posix_spawnattr_t *SBX_RESTRICT attrp,
                     const sbx_scopeattr_t *SBX_RESTRICT scope,
                     char *const argv[SBX_RESTRICT], char *const envp[SBX_RESTRICT]);

/* glibc 2.39's pidfd_spawn and pidfd_spawnp with a scope: *pidfd a pid
 * file descriptor of the child (close-on-exec), no pid written; ENOSYS
 * where the kernel makes no pidfds (and in the portable build). */
int sbx_pidfd_spawn(int *SBX_RESTRICT pidfd, const char *SBX_RESTRICT path,
                    const sbx_file_actions_t *file_actions,
                    const posix_spawnattr_t *SBX_RESTRICT attrp,
                    const sbx_scopeattr_t *SBX_RESTRICT scope,
                    char *const argv[SBX_RESTRICT], char *const envp[SBX_RESTRICT]);

int sbx_pidfd_spawnp(int *SBX_RESTRICT pidfd, const char *SBX_RESTRICT file,
                     const sbx_file_actions_t *file_actions,
                     const posix_spawnattr_t *SBX_RESTRICT attrp,
                     const sbx_scopeattr_t *SBX_RESTRICT scope,
                     char *const argv[SBX_RESTRICT], char *const envp[SBX_RESTRICT]);

/* system(3) with a scope: command run by /bin/sh -c, SIGINT and SIGQUIT
 * ignored and SIGCHLD blocked meanwhile, the wait status returned; a NULL
 * command says whether a shell runs (under scope).  Where the shell cannot
 * be started, the status of a shell that exited 127, errno set, as
 * system(3).  Where the scope kept it from running (SBX_EREFUSED, ENOTSUP
 * under SBX_SCOPE_REQUIRE, a compile that failed), -1 with errno set: no
 * command has that status.  Like system(3), and unlike the library's other
 * calls, it sets errno, and it is a cancellation point. */
int sbx_system(const char *command, const sbx_scopeattr_t *scope);

/* ------------------------------------------------------------------------
 * Confine the calling process, then exec: for launchers
 * --------------------------------------------------------------------- */

/* Applies scope to the calling process and replaces it with path (file is
 * looked up in PATH as posix_spawnp does), with the same outcomes as
 * sbx_posix_spawn: narrowed with a warning, unconfined where the kernel has
 * no Landlock (ENOTSUP with SBX_SCOPE_REQUIRE), SBX_EREFUSED when Landlock
 * refused the ruleset (after an SBX_EVENT_REFUSED event).  Returns only on
 * failure.  The state it leaves: a failure before the ruleset was applied
 * (ENOTSUP, SBX_EREFUSED, an unresolvable path) leaves the process
 * unconfined, though no_new_privs may be set; a failure of the exec itself
 * leaves the calling thread confined, for good, with no_new_privs set.
 * A compile made for it serves that exec alone: nothing is watched or kept
 * in scope for a later spawn. */
int sbx_execve(const char *path, const sbx_scopeattr_t *scope, char *const argv[],
               char *const envp[]);
int sbx_execvpe(const char *file, const sbx_scopeattr_t *scope, char *const argv[],
                char *const envp[]);

#ifdef __cplusplus
}
#endif

#endif /* SBXSPAWN_SBXSPAWN_H */
