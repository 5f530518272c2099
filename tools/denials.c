/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own word on what a command was denied, read from the audit
 * log with no daemon: a netlink audit socket in the read-log multicast
 * group (which needs CAP_AUDIT_READ) receives every record the kernel
 * logs.  The command's Landlock domain logs past its exec only with
 * SBX_SCOPE_LOG_DENIALS; each denial is an AUDIT_LANDLOCK_ACCESS record
 * naming the domain, the rights missing and the object, and the first of a
 * domain comes with an AUDIT_LANDLOCK_DOMAIN record naming the pid that
 * made it: the command, which restricted itself between its clone and its
 * exec.
 *
 * The kernel hands records to readers from a queue of its own, after the
 * process that caused them has moved on: when the command has ended, some
 * may still be queued.  So the report ends at a mark: a user message
 * (AUDIT_USER, which needs CAP_AUDIT_WRITE) sent once the command ended
 * goes through the same queue, behind every record the command caused, and
 * once it is read back nothing of the command's is left to come.  The
 * command run, and its report: denied.c.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "sbxspawn/sbxspawn.h"
#include "tools/denials.h"
#include "tools/lifetime.h"
#include "tools/procs.h"

extern char **environ;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The longest record the kernel sends (MAX_AUDIT_MESSAGE_LENGTH), and its
 * header. */
#define RECORD_MAX 8970

struct access_record {
	char domain[32];
	char *rights, *object;
	bool path;
};

struct domain_record {
	char domain[32];
	long pid;
	int tree; /* its maker descends from sbxrun: 1, 0, or -1 (it ended first) */
};

/* ---- requests --------------------------------------------------------- */

/* Sends one request on the control socket and reads its answer: 0 with
 * the reply's payload in reply (where one is wanted), or the errno. */
static int request(int fd, int type, const void *data, size_t len, void *reply, size_t rlen)
{
	struct {
		struct nlmsghdr h;
		char data[1024];
	} m = { .h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(len), .nlmsg_type = (uint16_t)type,
	               .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 } };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[RECORD_MAX + 64];

	if (len > sizeof(m.data))
		return EINVAL;
	if (len) /* data may be NULL with nothing to send */
		memcpy(m.data, data, len);
	if (sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)NLMSG_HDRLEN)
			return n < 0 ? errno : EPROTO;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (e->error || !reply)
				return -e->error;
		} else if (h->nlmsg_type == type && reply) {
			memcpy(reply, NLMSG_DATA(h), rlen);
			return 0;
		}
	}
}

int denials_open(struct denials *d)
{
	struct audit_status st = { 0 };
	struct sockaddr_nl group = { .nl_family = AF_NETLINK,
		                     .nl_groups = 1U << (AUDIT_NLGRP_READLOG - 1) };
	int size = 8 << 20, err;

	*d = (struct denials){ .ctl = -1, .log = -1 };
	d->ctl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	d->log = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (d->ctl < 0 || d->log < 0) {
		snprintf(d->why, sizeof(d->why), "this kernel has no audit (%s)", strerror(errno));
		return -1;
	}
	if ((err = request(d->ctl, AUDIT_GET, NULL, 0, &st, sizeof(st)))) {
		snprintf(d->why, sizeof(d->why), "whether the audit log is on cannot be told (%s: it "
		         "needs CAP_AUDIT_CONTROL; run sbxrun as root)", strerror(err));
		return -1;
	}
	d->lost = st.lost;
	if (!st.enabled) {
		snprintf(d->why, sizeof(d->why), "the audit log is off: turn it on as root "
		         "(auditctl -e 1, of the auditd package) and run again");
		return -1;
	}
	/* Room for a burst of denials while the command runs. */
	if (setsockopt(d->log, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(d->log, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(d->log, (struct sockaddr *)&group, sizeof(group))) {
		snprintf(d->why, sizeof(d->why), "reading the audit log needs CAP_AUDIT_READ (%s): run "
		         "sbxrun as root, or read the records with ausearch -m LANDLOCK_ACCESS",
		         strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- reading ---------------------------------------------------------- */

/* The value of field name= in a record's text (len bytes), in out: as it
 * stands, or for a string (strings set), unquoted, or decoded where the
 * kernel wrote it in hexadecimal (as it does an untrusted string that holds
 * a space, a quote or a control character).  false where there is none. */
static bool field(const char *text, size_t len, const char *name, bool string, char *out,
                  size_t cap)
{
	size_t nlen = strlen(name), o = 0;
	const char *p = text, *end = text + len, *v, *q;

	for (; p + nlen < end; p++)
		if ((p == text || p[-1] == ' ') && !strncmp(p, name, nlen) && p[nlen] == '=')
			break;
	if (p + nlen >= end)
		return false;
	v = p + nlen + 1;
	if (string && v < end && *v == '"') {
		for (v++; v < end && *v != '"' && o + 1 < cap; v++)
			out[o++] = *v;
	} else {
		for (q = v; q < end && *q != ' '; q++)
			;
		string &= (q - v) % 2 == 0;
		for (; v < q && o + 1 < cap; v += string ? 2 : 1)
			out[o++] = string ? (char)strtol((char[]){ v[0], v[1], 0 }, NULL, 16) : *v;
	}
	out[o] = '\0';
	return true;
}

/* The object of an access record: its path, or the rest of the record
 * past the rights (a signal's target, a port). */
static char *object_of(const char *text, size_t len, bool *path)
{
	char buf[RECORD_MAX];
	const char *rest = memmem(text, len, "blockers=", 9);

	if ((*path = field(text, len, "path", true, buf, sizeof(buf))))
		return strdup(buf);
	if (rest && (rest = memchr(rest, ' ', len - (size_t)(rest - text))))
		return strndup(rest + 1, len - (size_t)(rest + 1 - text));
	return strdup("");
}

static void keep(struct denials *d, int type, const char *text, size_t len)
{
	char domain[32], rights[256], pid[32], status[32];

	if (!field(text, len, "domain", false, domain, sizeof(domain)))
		return;
	if (type == AUDIT_LANDLOCK_ACCESS && field(text, len, "blockers", false, rights, sizeof(rights))) {
		struct access_record *grown = d->records, *r;

		if (d->nrecords == d->cap &&
		    !(grown = realloc(d->records, (d->cap = d->cap ? 2 * d->cap : 64) * sizeof(*grown))))
			return;
		d->records = grown;
		r = &d->records[d->nrecords];
		snprintf(r->domain, sizeof(r->domain), "%s", domain);
		if ((r->rights = strdup(rights)) && (r->object = object_of(text, len, &r->path)))
			d->nrecords++;
		else
			free(r->rights);
	} else if (type == AUDIT_LANDLOCK_DOMAIN &&
	           field(text, len, "status", false, status, sizeof(status)) &&
	           !strcmp(status, "allocated") && field(text, len, "pid", false, pid, sizeof(pid))) {
		struct domain_record *grown = d->domains;

		if (d->ndomains == d->dcap &&
		    !(grown = realloc(d->domains, (d->dcap = d->dcap ? 2 * d->dcap : 8) * sizeof(*grown))))
			return;
		d->domains = grown;
		snprintf(d->domains[d->ndomains].domain, sizeof(grown->domain), "%s", domain);
		d->domains[d->ndomains].pid = strtol(pid, NULL, 10);
		/* Told now, while its maker most likely still runs (it was
		 * just denied). */
		d->domains[d->ndomains].tree = procs_descends((pid_t)d->domains[d->ndomains].pid);
		d->ndomains++;
	}
}

/* Reads what the log has now, without waiting. */
static void drain(struct denials *d)
{
	char buf[RECORD_MAX + 64];
	ssize_t n;

	while ((n = recv(d->log, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;
		const char *text = NLMSG_DATA(h);
		size_t len;

		if (n < 0) {
			if (errno == ENOBUFS)
				d->overflowed = true;
			if (errno == ENOBUFS || errno == EINTR)
				continue;
			return; /* EAGAIN: nothing more now */
		}
		if (n < (ssize_t)NLMSG_HDRLEN || h->nlmsg_len > (size_t)n)
			continue;
		len = h->nlmsg_len - NLMSG_HDRLEN;
		if (h->nlmsg_type == AUDIT_USER && d->cookie[0] && memmem(text, len, d->cookie,
		                                                              strlen(d->cookie)))
			d->ended = true;
		else
			keep(d, h->nlmsg_type, text, len);
	}
}

/* Waits until fd is readable, or a signal came: false where it never will
 * be within limit_ms (-1: no limit). */
static bool readable(int fd, int limit_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, limit_ms);

	return r != 0;
}

/* What the kernel lost since the start (its backlog full, or the rate
 * limit met): a record of the command's may be among them. */
static void lost_since(struct denials *d)
{
	struct audit_status st = { 0 };

	if (!request(d->ctl, AUDIT_GET, NULL, 0, &st, sizeof(st)) && st.lost != d->lost)
		d->lost_since = st.lost - d->lost;
}

/* Set by the caller's death (--die-with-parent): the command ends. */
static volatile sig_atomic_t parent_gone;

static void note_parent_gone(int sig)
{
	(void)sig;
	parent_gone = 1;
}

int denials_end_with_parent(pid_t caller)
{
	struct sigaction sa = { .sa_handler = note_parent_gone };

	sigemptyset(&sa.sa_mask);
	sigaction(LIFETIME_PARENT_GONE, &sa, NULL);
	return prctl(PR_SET_PDEATHSIG, LIFETIME_PARENT_GONE, 0, 0, 0) || getppid() != caller ? ESRCH
	                                                                                      : 0;
}

/* The command's time ran out, or no one waits for it any more: it ends,
 * with its tree unless that is kept. */
static void end_command(struct denials *d, pid_t pid)
{
	if (d->end_tree) {
		lifetime_end_tree();
	} else {
		kill(pid, SIGTERM);
		kill(pid, SIGCONT);
	}
}

/* Waits for the command (reading its records as they come, where the log
 * is read, so that a burst of them does not overflow the socket), ending
 * it when its time runs out or sbxrun's caller ends: its wait status, or
 * -1 with errno. */
int denials_wait_command(struct denials *d, pid_t pid, bool reading)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status;
	long long deadline = d->timeout_ns ? lifetime_now_ns() + d->timeout_ns : -1;
	int ending = 0; /* 1: asked to end; 2: made to (SIGKILL) */

	while (pidfd >= 0) {
		struct pollfd p[2] = { { .fd = pidfd, .events = POLLIN },
			               { .fd = reading ? d->log : -1, .events = POLLIN } };
		long long left = deadline < 0 ? -1 : (deadline - lifetime_now_ns()) / 1000000;
		bool due = deadline >= 0 && left <= 0;

		if ((!ending && (parent_gone || due)) || (ending == 1 && due)) {
			if (!ending++) {
				d->timed_out = !parent_gone;
				end_command(d, pid);
				/* A command that ignores SIGTERM: SIGKILL after
				 * the grace (its tree, if ended, had it). */
				deadline = lifetime_now_ns() + LIFETIME_GRACE_NS;
			} else {
				kill(pid, SIGKILL);
				deadline = -1;
			}
			continue;
		}
		if (poll(p, 2, left < 0 ? -1 : left > 3600000 ? 3600000 : (int)left + 1) < 0 &&
		    errno != EINTR)
			break;
		if (reading)
			drain(d);
		if (p[0].revents)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

int denials_wait(struct denials *d, pid_t pid)
{
	int status = denials_wait_command(d, pid, true);
	struct timespec now;
	char mark[128];

	if (status == -1)
		return -1;
	/* Counted as it ends: one that ends later may be denied after the
	 * report, and is among them. */
	if (d->end_tree)
		lifetime_end_tree();
	d->left = procs_descendants();
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(d->cookie, sizeof(d->cookie), "sbxrun-denials-end-%ld-%ld.%09ld", (long)getpid(),
	         (long)now.tv_sec, now.tv_nsec);
	snprintf(mark, sizeof(mark), "%s: the report of pid %ld is whole", d->cookie, (long)pid);
	if (request(d->ctl, AUDIT_USER, mark, strlen(mark) + 1, NULL, 0)) {
		snprintf(d->why, sizeof(d->why), "the end of the command's records cannot be marked "
		         "(sending to the audit log needs CAP_AUDIT_WRITE): the report may miss the last");
		drain(d);
		return status;
	}
	/* The mark comes behind every record of the command's.  Should the
	 * log drop it (a backlog limit, a rule), the report stops after ten
	 * seconds of silence, and says it may be short. */
	while (!d->ended && readable(d->log, 10000))
		drain(d);
	if (!d->ended)
		snprintf(d->why, sizeof(d->why), "the audit log did not mark the end of the command's "
		         "records (a backlog limit, or a rule): the report may miss some");
	lost_since(d);
	return status;
}

/* ---- the report -------------------------------------------------------- */

/* Whether domain is the command's or of a process it started (1), of a
 * process the report cannot place (-1), or another's (0). */
static int made_by(const struct denials *d, const char *domain, pid_t pid)
{
	for (size_t i = 0; i < d->ndomains; i++)
		if (!strcmp(d->domains[i].domain, domain))
			return d->domains[i].pid == (long)pid ? 1 : d->domains[i].tree;
	return 0;
}

struct denial *denials_of(struct denials *d, pid_t pid, size_t *n)
{
	struct denial *v = calloc(d->nrecords + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < d->nrecords; i++) {
		const struct access_record *r = &d->records[i];
		size_t k;

		int mine = made_by(d, r->domain, pid);

		d->unplaced += mine < 0;
		if (mine <= 0)
			continue;
		for (k = 0; k < *n && (strcmp(v[k].rights, r->rights) || strcmp(v[k].object, r->object));
		     k++)
			;
		if (k == *n)
			v[(*n)++] = (struct denial){ .rights = r->rights, .object = r->object,
			                             .path = r->path };
		v[k].count++;
	}
	return v;
}

void denials_free(struct denials *d, struct denial *v, size_t n)
{
	(void)n;
	free(v);
	for (size_t i = 0; i < d->nrecords; i++) {
		free(d->records[i].rights);
		free(d->records[i].object);
	}
	free(d->records);
	free(d->domains);
	if (d->ctl >= 0)
		close(d->ctl);
	if (d->log >= 0)
		close(d->log);
	*d = (struct denials){ .ctl = -1, .log = -1 };
}
