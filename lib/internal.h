/* SPDX-License-Identifier: MIT */
/* Declarations shared by the files of lib/; nothing here is exported. */
#ifndef SBX_INTERNAL_H
#define SBX_INTERNAL_H

#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sbxspawn/sbxspawn.h"

#define SBX_EXPORT __attribute__((visibility("default")))

/* Saves errno on entry and puts it back at every return: no public function changes it. */
#define SBX_KEEP_ERRNO int sbx__saved_errno __attribute__((cleanup(sbx__restore_errno))) = errno
void sbx__restore_errno(const int *saved);

/* Turns cancellation off for the rest of the function, as glibc does for
 * posix_spawn: a call that holds locks, descriptors and memory must not
 * stop halfway at a cancellation point (its own, or a logger's).  A cancel
 * that came meanwhile acts at the caller's next cancellation point. */
#define SBX_NO_CANCEL int sbx__cancel_state __attribute__((cleanup(sbx__restore_cancel))) = \
	sbx__disable_cancel()
int sbx__disable_cancel(void);
void sbx__restore_cancel(const int *old);

/* ---- paths (resolve.c) ----------------------------------------------- */

/* Makes path absolute against the working directory, follows every
 * symlink in the part that exists and normalises the rest; out holds
 * PATH_MAX bytes. */
int sbx__resolve(const char *path, char *out);
/* The same, as written (`.', `..', `//' as they stand, no symlink looked
 * at); where the two differ, the resolution went through a symlink. */
int sbx__path_written(const char *path, char *out);
/* Appends "/name" (len bytes of it) to the absolute path in buf. */
int sbx__path_push(char *buf, const char *name, size_t len);
void sbx__path_pop(char *buf);
/* Whether a is b or one of b's ancestors (both absolute, resolved). */
bool sbx__path_covers(const char *a, const char *b);
/* What path has beyond prefix (which covers it). */
const char *sbx__path_after(const char *prefix, const char *path);
/* Orders paths so that a path's descendants follow it at once ('/' first);
 * a is taken to alen bytes at most. */
int sbx__path_order(const char *a, const char *b, size_t alen);

/* Room for `need' elements of `size' bytes in v of *cap: v (moved, perhaps,
 * *cap grown), or NULL with v untouched. */
void *sbx__grow(void *v, size_t *cap, size_t need, size_t size);

/* ---- file actions (file_actions.c) ---------------------------------- */

enum sbx_fa_kind {
	SBX_FA_OPEN,
	SBX_FA_CLOSE,
	SBX_FA_DUP2,
	SBX_FA_CHDIR,
	SBX_FA_FCHDIR,
	SBX_FA_CLOSEFROM,
	SBX_FA_TCSETPGRP
};

struct sbx_file_action {
	enum sbx_fa_kind kind;
	int fd;      /* the target of open, close, dup2; fchdir, closefrom, tcsetpgrp */
	int srcfd;   /* dup2's source */
	int oflag;
	mode_t mode;
	char *path;  /* open, chdir */
};

/* The highest descriptor any action names, or -1. */
int sbx__file_actions_maxfd(const sbx_file_actions_t *fa);

/* ---- the scope (scope.c) -------------------------------------------- */

enum sbx_mode { SBX_MODE_DENY, SBX_MODE_READONLY, SBX_MODE_ALLOW };

struct sbx_scope_rule {
	enum sbx_mode mode;
	char *path; /* resolved when it was added: absolute, no symlink */
	/* A re-admission or read-only path whose resolution went through a
	 * symlink: the path as written (absolute), which a denial's own
	 * re-admissions do not take its target for (tree.c); else NULL. */
	char *written;
	bool tmpdir; /* sbx_scopeattr_settmpdir()'s: the child's TMPDIR */
};

struct sbx_ruleset;

/* A resource limit as prlimit64(2) takes it; the resources a scope may
 * limit are those below SBX_RLIMITS (and the C library's RLIM_NLIMITS). */
#define SBX_RLIMITS 16
struct sbx_rlimit64 {
	uint64_t cur, max;
};

struct sbx_scope {
	struct sbx_scope_rule *rules;
	size_t nrules, cap;
	int flags;
	int abi_cap;
	bool ids;    /* sbx_scopeattr_setids(): run the child as uid, gid */
	uid_t uid;
	gid_t gid;
	sbx_logger_t logger;
	void *logger_arg;
	unsigned events; /* sbx_scopeattr_setevents() */
	char *labels[5]; /* sbx_scopeattr_setlabel(), by SBX_DENY .. SBX_TMPDIR */
	char env_prefix[201]; /* sbx_scopeattr_readenv()'s (at most 200): events name them */
	const char *speaker;  /* who a refused child's line says it is; NULL: "sbxspawn" (sbxrun's) */
	void (*words)(const char *in, char *out, size_t cap); /* and in whose words (sbxrun's) */
	/* Test-only: told every grant the compiler adds (the fuzzer's oracle). */
	void (*trace)(const char *path, uint64_t access, bool dir, dev_t dev, ino_t ino, void *arg);
	void *trace_arg;
	struct sbx_port {
		int access; /* SBX_TCP_* */
		unsigned port;
	} *ports;
	size_t nports, ports_cap;
	/* sbx_scopeattr_addenv() (childenv.c) */
	char **env_unset, **env_set; /* patterns; NAME=VALUE entries */
	size_t nenv_unset, nenv_set;
	bool env_clear;
	/* sbx_scopeattr_setrlimit() (limits.c): each resource whose bit is
	 * set in rlimits_set */
	struct sbx_rlimit64 rlimits[SBX_RLIMITS];
	unsigned rlimits_set;
	/* sbx_scopeattr_setcgroup() (limits.c): the caller's descriptor */
	bool cgroup;
	int cgroup_fd;
	/* sbx_scopeattr_allowsocket() (sockets.c): resolved paths */
	char **sockets;
	size_t nsockets, sockets_cap;
	/* Not part of the scope's value: what spawns reuse.  One lock of
	 * ruleset.c guards both pointers of every scope; each ruleset is
	 * reference-counted. */
	struct sbx_ruleset *snapshot; /* sbx_scopeattr_compile() */
	struct sbx_ruleset *cache;    /* the last fresh compile, while current */
	atomic_uint frozen_said;      /* SBX_EVENT_FROZEN, once per scope (frozen.c) */
	atomic_int paths_said_by;     /* the process that said its paths' word (ruleset.c) */
	atomic_bool compiled;         /* compiled at a spawn before: worth watching (ruleset.c) */
};

/* A spawn (spawn.c; portable.c in the portable build): *pidp set, where
 * pidp is not NULL; or with pidfdp, *pidfdp a pidfd of the child instead
 * (close-on-exec, as every pidfd is), or ENOSYS where none is made. */
int sbx__spawn(pid_t *restrict pidp, int *pidfdp, const char *file, int search,
               const sbx_file_actions_t *fa, const posix_spawnattr_t *restrict attr,
               const sbx_scopeattr_t *restrict scopeattr, char *const argv[restrict],
               char *const envp[restrict]);

/* addlist's work, without its event: where an item fails, *bad and
 * *badlen say which (nothing of the list is added). */
int sbx__scope_addlist(sbx_scopeattr_t *scope, int mode, const char *list, const char **bad,
                       size_t *badlen);
/* Whether the scope asks nothing of a child (sbx_scopeattr_isempty). */
bool sbx__scope_empty(const struct sbx_scope *s);
/* settmpdir's work, without its event. */
int sbx__scope_settmpdir(sbx_scopeattr_t *scope, const char *dir);
/* Takes back the rules from index `from' on. */
void sbx__scope_truncate(struct sbx_scope *s, size_t from);

/* The environment the child gets, in *env (childenv.c): envp as the caller
 * gave it (NULL too, which execve takes as an empty one), or a copy with
 * the scope's changes (sbx_scopeattr_addenv, its TMPDIR): *copy to free
 * after the spawn, NULL when there is none.  0, or ENOMEM with *env
 * untouched. */
int sbx__scope_env(const struct sbx_scope *scope, char *const envp[], char *const **env,
                   char ***copy);
/* SBX_ENV_UNSET for each item of a ':'-separated list, all or nothing (on
 * an error, *bad and *len say which item). */
int sbx__scope_unsetlist(struct sbx_scope *s, const char *list, const char **bad, size_t *len);
/* Takes back the SBX_ENV_UNSET items from index `from' on. */
void sbx__scope_unset_truncate(struct sbx_scope *s, size_t from);
/* What sbx_scopeattr_addenv and sbx_scopeattr_allowsocket kept, released. */
void sbx__scope_env_free(struct sbx_scope *s);
void sbx__scope_sockets_free(struct sbx_scope *s);

/* The ruleset a spawn with this scope applies: the snapshot; else the last
 * compile, if a new compile would give the identical ruleset; else a new
 * compile, kept for the next spawn.  With `once' (an exec that replaces
 * the caller), a new compile is made for this one use and not kept; with
 * `expand', one that hides no denial, for this one spawn, not kept.  0
 * with *rs to be put back, or an error number. */
int sbx__scope_get(const struct sbx_scope *scope, bool once, bool expand, struct sbx_ruleset **rs);
void sbx__scope_put(struct sbx_ruleset *rs);
/* The scope changed: nothing compiled from it before applies. */
void sbx__ruleset_forget(struct sbx_scope *s);

/* ---- a fork of the caller (fork.c) ------------------------------------ */

/* The library's part of pthread_atfork: each file with a lock takes it
 * before a fork and leaves it consistent on both sides. */
enum sbx_fork_phase { SBX_FORK_PREPARE, SBX_FORK_PARENT, SBX_FORK_CHILD };
/* Registered by a constructor of fork.c, which a program linked with the
 * static library gets only where one of its symbols is used: each file
 * with a lock, and spawn.c, use this one (SBX__WITH_FORK_HANDLERS at
 * their tops; not diag.c, which the filter's own test links alone). */
extern const char sbx__fork_handlers;
#define SBX__WITH_FORK_HANDLERS \
	__attribute__((used)) static const char *const sbx__pulls_fork_c = &sbx__fork_handlers
void sbx__ruleset_atfork(enum sbx_fork_phase phase);
void sbx__fds_atfork(enum sbx_fork_phase phase);
/* Runs init once per process (*done tells), under one lock of diag.c
 * rather than pthread_once: a fork while another thread runs an init
 * leaves the child able to run it (musl's pthread_once would not). */
void sbx__once(atomic_bool *done, void (*init)(void));
void sbx__once_atfork(enum sbx_fork_phase phase);
/* A block of the calling thread's own, made zeroed on its first use and
 * handed to destroy (free, where NULL) when the thread ends; NULL where
 * no key or no memory could be had.  Static, one per kind of block. */
struct sbx_thread_slot {
	pthread_key_t key;
	atomic_bool tried; /* under sbx__once's lock */
	bool made;
	size_t size;
	void (*destroy)(void *);
};
void *sbx__thread_slot(struct sbx_thread_slot *slot);
/* sbx_system's count of the calls running (system.c). */
void sbx__system_atfork(enum sbx_fork_phase phase);

/* ---- descriptors kept between calls (fds.c) -------------------------- */

/* Making a descriptor to keep: between begin and end, keep moves it out
 * of the caller's way (*fd changes) and registers it.  EMFILE where there
 * is no room out of the way (a low RLIMIT_NOFILE, the room taken): then it
 * is neither moved nor kept, and stays the caller of keep's to close. */
void sbx__fds_begin(void);
int sbx__fds_keep(int *fd, bool ruleset, atomic_bool *lost);
void sbx__fds_end(void);
/* Closes a kept descriptor, unless its number was lost to the caller. */
void sbx__fds_close(int fd, atomic_bool *lost);
/* Between begin and end: no longer keeps fd, and leaves it open (its
 * holder will close it). */
void sbx__fds_forget(int fd, atomic_bool *lost);
/* The kept descriptors below floor, which a file action could name, for a
 * child to close (*out malloc'd), as of generation *gen. */
int sbx__fds_hide(int floor, int **out, size_t *n, unsigned *gen);
/* Whether a kept descriptor was made or closed since gen (lock-free,
 * async-signal-safe: the child asks it, through its copy of memory in the
 * fork fallback, taken with its descriptor table). */
bool sbx__fds_changed(unsigned gen);

/* ---- the kernel interface (landlock.c) ------------------------------ */

/* The running kernel's Landlock ABI, probed once per process: > 0, or a
 * negative errno (-ENOSYS not built in, -EOPNOTSUPP disabled at boot,
 * anything else refused). */
int sbx__landlock_abi(void);
/* Every filesystem right that ABI abi knows. */
uint64_t sbx__fs_rights_known(int abi);
/* Rights a rule on something that is not a directory may carry. */
uint64_t sbx__fs_rights_file(int abi);
/* Read and execute. */
uint64_t sbx__fs_rights_read(int abi);
/* Creates a ruleset handling every filesystem right of abi, and the given
 * network rights and scopes: fd, or -errno. */
int sbx__ruleset_create(int abi, uint64_t net, uint64_t scoped);
/* Whether fd is a Landlock ruleset (one system call, no effect). */
bool sbx__is_ruleset(int fd);
/* Adds a TCP port rule: 0 or -errno. */
int sbx__ruleset_add_port(int ruleset_fd, unsigned port, uint64_t access);

/* sbx_scopeattr_explain's look at the caller itself (reach.c): the rights
 * of *access at path that the caller's own open is refused (its domain, or
 * permissions a child shares) are taken out, and note says which. */
void sbx__explain_caller(const struct sbx_scope *s, const char *path, int *access, char *note,
                         size_t cap);

/* ---- seccomp (seccomp.c) -------------------------------------------- */

/* What a filter closes. */
#define SBX_CLOSE_IO_URING 0x1 /* io_uring_setup, _enter, _register */
#define SBX_CLOSE_STREAMS 0x2  /* inet stream sockets but TCP's (MPTCP, SMC), AF_SMC */
#define SBX_CLOSE_FASTOPEN 0x4 /* MSG_FASTOPEN: a connect hidden in a send */
#define SBX_CLOSE_TCP 0x8      /* every TCP (and MPTCP) socket */
#define SBX_CLOSE_TERMINAL 0x10 /* ioctl TIOCSTI and TIOCLINUX: input pushed into a terminal */
#define SBX_CLOSE_PROCESSES 0x20 /* limits, priorities, affinity, scheduling, perf events of another
                                  * process; a process made the caller's child (CLONE_PARENT) */
#define SBX_CLOSE_KEYRINGS 0x40 /* add_key, request_key, keyctl */
#define SBX_CLOSE_MOUNTS 0x80 /* mount_setattr: the attributes of mounts the caller sees */
#define SBX_CLOSE_MQUEUE 0x100 /* mq_open, mq_unlink: POSIX message queues by name */
#define SBX_CLOSE_NAMESPACE 0x200 /* setns, open_tree[_attr], fsopen, fsmount, fspick,
                                   * open_by_handle_at, fanotify_init: past a hidden
                                   * denial's cover */
#define SBX_CLOSE_LOG_OFF 0x400 /* landlock_restrict_self with a flag that turns the log off:
                                 * under SBX_SCOPE_LOG_DENIALS, what the report reads */
#define SBX_CLOSE_NETWORK 0x800 /* socket, socketpair of a family but AF_UNIX, AF_INET[6];
                                 * an inet socket that is not a stream */
#define SBX_CLOSE_INET 0x1000 /* every inet socket (no TCP port allowed either) */
#define SBX_CLOSE_ALL 0x1fff

struct sock_fprog;
/* Whether this architecture's filters are known. */
bool sbx__seccomp_supported(void);
/* Whether the kernel takes filters from this process (asked once). */
bool sbx__seccomp_kernel(void);
/* The filter closing what `closed' says, built once per process and kept
 * for its life, or NULL with errno set. */
const struct sock_fprog *sbx__seccomp_filter(int closed);

/* What refused a confinement, in the three parts of the refusal line
 * "sbxspawn: PROGRAM: not run: WHAT: CALL: WHY": WHAT says who refused
 * (one of the SBX_REFUSED_* below), CALL what was tried, WHY why it was
 * refused (NULL: the error number's text).  WHAT, CALL and the WHY made
 * here never hold ": ", so that a reader can split the line. */
struct refusal {
	const char *what;
	const char *call;
	const char *why;
};

/* text in scope's words, into out: its variables, its caller's (sbxrun), or ours (diag.c). */
void sbx__scope_words(const struct sbx_scope *scope, const char *text, char *out, size_t cap);

#define SBX_REFUSED_LANDLOCK "Landlock refused the ruleset"
#define SBX_REFUSED_APPLY "its confinement could not be applied"
#define SBX_REFUSED_STRICT "SBX_SCOPE_STRICT refuses a control not enforced in full"
#define SBX_REFUSED_LISTING "the Landlock domain this process runs in forbids listing"
#define SBX_REFUSED_HIDE "its denials could not be hidden"

/* Who refused, when the step named call failed while confining
 * (async-signal-safe: the child asks it). */
const char *sbx__refused_by(const char *call);

/* Adds a path-beneath rule on fd: 0 or -errno. */
int sbx__ruleset_add(int ruleset_fd, int fd, uint64_t access);

/* ---- a compiled ruleset (compile.c makes it, ruleset.c keeps it) -------- */

struct sbx_dir;
struct notify_log;

/* A denial hidden, or a read-only path sealed (ro), in the child's namespace
 * (hide.c, cover.c), or a path bound back into either: the inode found. */
struct cover {
	const char *path;
	unsigned dev_major, dev_minor; /* as statx(2) gives them */
	uint64_t ino;
	bool dir, ro;
};

struct sbx_ruleset {
	int fd;           /* Landlock ruleset, O_CLOEXEC; -1 if none */
	int confinement;  /* enum sbx_confinement */
	int abi;
	int kernel_abi;
	int error;        /* why the ruleset was refused */
	struct refusal refusal;   /* what refused it */
	char *refused_text;       /* refusal.why, where it is made for this compile */
	int controls;     /* SBX_SCOPE_NO_* enforced in full, SBX_SCOPE_LOG_DENIALS */
	unsigned restrict_flags; /* landlock_restrict_self()'s (logging) */
	int closed;       /* SBX_CLOSE_*: what the seccomp filter closes */
	bool mqueue_granted; /* the scope names an mqueue mount, not denied (kernelfs.c) */
	uint64_t net;     /* the network rights the ruleset handles */
	const struct sock_fprog *filter; /* for closed, or NULL: the process's (seccomp.c) */
	atomic_uint rules;
	unsigned ndropped;
	char **dropped;
	size_t *unapplied; /* the scope's rules left out, by index (tree.c) */
	size_t nunapplied;
	/* Denials hidden and read-only paths sealed in the child's own namespace
	 * (hide.c), sorted, the dirs above pinned, highest first. */
	struct cover *covers;
	size_t ncovers;
	struct cover *binds; /* re-admitted paths beneath covers, bound back in */
	size_t nbinds;
	char **pins;
	size_t npins;
	unsigned nhidden, nexpanded; /* denials of each way, for the outcome */
	/* The scope's denials and read-only paths, by index, expanded for not
	 * being there alone: made, a cover would take them whole (hide.c). */
	size_t *absent;
	size_t nabsent;
	struct keptns *ns; /* the child's namespace, kept from the second spawn (hidens.c) */
	atomic_uint spawns; int ns_state;
	bool expand_all;   /* compiled with no denial hidden (SBX_COMPILE_EXPAND) */

	/* For reuse: what the compile read (ruleset.c and reuse.c check it). */
	atomic_int refs;
	atomic_bool stale;
	bool reusable;     /* what it read can be checked again */
	bool lasting_drops; /* a grant dropped that a new compile would drop too */
	atomic_uint nunsettled; /* directories with drops of their own, until
	                         * they are listed again: then the compile is
	                         * what a new one would give, narrowed no more */
	bool snapshot;     /* sbx_scopeattr_compile(): entries that appear stay unreachable */
	bool once;         /* for one exec (sbx_execve): nothing kept for a reuse, no
	                    * watches, no handles, no descriptor moved up */
	bool unwatched;    /* kept, but with no watch and no file handle: a scope's
	                    * first compile at a spawn (ruleset.c) */
	uint64_t file_rights;
	struct sbx_dir *dirs;
	size_t ndirs, dirs_cap;
	int mounts_fd;     /* the mount table, polled for changes; -1 */
	bool mounts_kept;  /* registered with fds.c (else the compile's own) */
	int notify_fd;     /* inotify on the expanded directories (notify.c); -1 */
	bool notify_failed, notify_void; /* none could be made; it proves nothing now */
	bool notify_checked; /* known to be ours during this reuse check */
	signed char handles; /* file handles open again here: 1, -1 not, 0 not yet
	                      * known (judge.c) */
	atomic_bool notify_lost;
	struct notify_log *logs; /* by watch descriptor */
	size_t nlogs;
	dev_t mounts_dev;  /* and what it is, for a caller may reuse its number */
	ino_t mounts_ino, mounts_ns; /* the namespace whose table it is; 0: unknown */
	atomic_bool fd_lost, mounts_lost; /* their numbers went to someone else */
	pthread_mutex_t check_lock;
	struct sbx_ruleset *live_prev, *live_next; /* every ruleset alive (ruleset.c) */
};

/* Compiles scope against the filesystem as it is now.  Returns 0 with
 * out->confinement telling the outcome (a refused ruleset is an outcome,
 * not an error), or an error number for a spawn that must not happen
 * (ENOMEM, EMFILE, ENOTSUP with SBX_SCOPE_REQUIRE, ...). */
#define SBX_COMPILE_ONCE 1      /* for one exec: see struct sbx_ruleset */
#define SBX_COMPILE_UNWATCHED 2 /* no watch, no handle */
#define SBX_COMPILE_SNAPSHOT 4  /* sbx_scopeattr_compile()'s: what it drops stays dropped */
#define SBX_COMPILE_EXPAND 8    /* every denial expanded, none hidden */
#define SBX_COMPILE_PROBE 16    /* whether a child can hide asked of a probe first */
int sbx__ruleset_compile(const struct sbx_scope *scope, int how, struct sbx_ruleset *out);
void sbx__ruleset_release(struct sbx_ruleset *rs);

/* ---- mount namespaces (mounts.c; hiding: hiding.h) --------------------- */

/* The calling thread's mount namespace, by its inode (0: unknown). */
ino_t sbx__mount_ns(void);

/* ---- the PATH lookup (search.c) ----------------------------------------- */

/* PATH from the environment, else the C library's default (in buf). */
const char *sbx__search_path(char *buf, size_t size);
/* posix_spawnp's lookup and exec; async-signal-safe.  Returns the errno. */
int sbx__exec_search(const char *file, const char *search_path, char *const argv[],
                     char *const envp[]);

/* ---- diagnostics (diag.c, escape.c) --------------------------------- */

#include "lib/escape.h"

/* Delivers an event to the scope's logger, if its mask lets the kind
 * through (sbx__wants). */
void sbx__event(const struct sbx_scope *scope, int kind, int err, const char *path,
                const char *path2, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
bool sbx__wants(const struct sbx_scope *scope, int kind);
/* Leaves this thread's events of these kinds (SBX_EVENT_BIT) unsaid until
 * called again; returns the kinds it left unsaid before.  The text of the
 * last one of the kinds keep (muted too) is kept in buf, unescaped. */
unsigned sbx__events_mute(unsigned kinds);
void sbx__events_keep(unsigned kinds, char *buf, size_t size);
/* What a compile says of the scope's paths whatever way its denials take:
 * a spawn that compiles again, expanded, has said it once already. */
#define SBX__SAID_OF_PATHS (SBX_EVENT_BIT(SBX_EVENT_IGNORED_DENY) | SBX_EVENT_BIT(SBX_EVENT_IGNORED_LINK))
/* As sbx__event, for loggers that keep data: the default logger does not
 * print it (sbx__default_says). */
void sbx__event_quiet(const struct sbx_scope *scope, int kind, int err, const char *path,
                      const char *path2, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* The SBX_EVENT_REFUSED about file.  Where no child writes the refusal
 * line (sbx_execve), the event is that line (without its "sbxspawn: "
 * head); else it says the same as "PROGRAM: not run: WHAT (CALL: WHY)",
 * which no reader of the child's line takes for a second one. */
void sbx__refused_event(const struct sbx_scope *scope, const char *file, int err,
                        const struct refusal *r, bool child_said);

/* Records the outcome of this thread's spawn, with a copy of the ruleset's
 * dropped grants when rs is given. */
void sbx__outcome_record(int confinement, const struct sbx_ruleset *rs, int stage, int action,
                         int error, int privilege);

/* ---- frozen directories (frozen.c) ------------------------------------- */

/* Says, once per ruleset, if it freezes the directory the child will use
 * for temporary files (TMPDIR in envp, else /tmp) or work in. */
void sbx__announce_frozen(const struct sbx_scope *scope, struct sbx_ruleset *rs,
                          char *const envp[], const sbx_file_actions_t *fa);

/* ---- privilege (privilege.c) ----------------------------------------- */

/* SBX_PRIVILEGE_* a child spawned with scope (and posix_spawnattr flags)
 * would keep; the first time it keeps any, an event says what. */
int sbx__privilege_kept(const struct sbx_scope *scope, short spawn_flags);

#endif /* SBX_INTERNAL_H */
