/* SPDX-License-Identifier: MIT */
/* sbxrun --report-denials: what the kernel's audit log says a command was
 * denied (denials.c). */
#ifndef SBX_DENIALS_H
#define SBX_DENIALS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* One access denied: the rights missing, as the kernel names them
 * ("fs.read_file,fs.refer"), and the object (a path, or what the record
 * says of another kind), how many times. */
struct denial {
	char *rights;
	char *object;
	bool path;     /* object is a path */
	unsigned count;
};

struct denials {
	int ctl;          /* NETLINK_AUDIT, for requests */
	int log;          /* NETLINK_AUDIT, the read-log group */
	char why[512];    /* why there is no report, where there is none */
	char cookie[64];  /* the marker that ends the report */
	bool overflowed;  /* records were lost on the way */
	uint32_t lost;    /* the kernel's count of records it lost, at the start */
	uint32_t lost_since; /* how many more it lost by the end of the report */
	bool end_tree;    /* the command's tree is ended when it ends */
	long long timeout_ns; /* the command's time (0: none), from its start */
	bool timed_out;   /* and it ran out */
	unsigned left;    /* processes of the command's tree running then */
	size_t unplaced;  /* denials of domains whose makers could not be placed */
	bool ended;       /* the marker came back */
	struct access_record *records; /* ACCESS records, any domain */
	size_t nrecords, cap;
	struct domain_record *domains; /* allocated domains: who made them */
	size_t ndomains, dcap;
};

/* Opens the audit log for reading: 0, or -1 with d->why saying why there
 * can be no report and what to do. */
int denials_open(struct denials *d);
/* Waits for pid to end, reading the log meanwhile: its wait status, or -1
 * with errno.  Then asks the log to mark its end, and reads up to the mark
 * (d->why says where it could not). */
int denials_wait(struct denials *d, pid_t pid);
/* Waits for pid (reading its records as they come where reading), ending
 * it when its time runs out or sbxrun's caller ends: its wait status, or
 * -1 with errno. */
int denials_wait_command(struct denials *d, pid_t pid, bool reading);
/* The accesses denied to the domain pid made and to those of the
 * processes it started (and to every process that inherited one), in the
 * order first denied: *n of them, malloc'd. */
struct denial *denials_of(struct denials *d, pid_t pid, size_t *n);
void denials_free(struct denials *d, struct denial *v, size_t n);
/* The command waited for ends, with its tree unless kept, once sbxrun's
 * caller has (--die-with-parent: LIFETIME_PARENT_GONE at our parent's
 * death): 0, or ESRCH where caller is no longer our parent. */
int denials_end_with_parent(pid_t caller);

struct sbx_scopeattr;
/* Runs argv under scope (with SBX_SCOPE_LOG_DENIALS) as a child, waits for
 * it, and says, each in one line through said, what it was denied, or why
 * that cannot be told (the library's words in the why of each put in the
 * caller's by words, never the names the command chose): 0 with its wait
 * status in *status, or the error of the spawn (nothing ran; nothing
 * said).  Its lifetime is l's (tools/lifetime.c): unless l->keep_tree,
 * what the command leaves running is ended before the report; where its
 * time runs out, or sbxrun's caller ends, it is ended with its tree
 * (*timed_out for the first). */
struct lifetime;
int denials_run(struct sbx_scopeattr *scope, char **argv, void (*said)(const char *line),
                void (*words)(const char *in, char *out, size_t cap), const struct lifetime *l,
                int *status, bool *timed_out);

#endif
