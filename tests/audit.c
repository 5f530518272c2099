/* SPDX-License-Identifier: MIT */
/* The kernel's audit log is one for the whole machine.  A denial test
 * switches it on, or off, or holds its backlog to one record, and every
 * other process's records go through the same log meanwhile: two runs of
 * the suite at once (CI runs one beside another) would lose each other's
 * records, and one would put back what the other had set, for good.  So a
 * test takes a lock in /run that every run on the machine shares, and
 * writes what it found into the lock's file before it changes anything:
 * where a run dies before it gives the log back (the watchdog's kill), the
 * next run to take the lock puts the log back first. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>


#include "tests/audit.h"
#include "tests/common.h"

#define LOCK "/run/sbxspawn-tests-audit"

/* The backlog a test holds the log to at least. */
#define ROOM 8192U

#define KEPT (AUDIT_STATUS_ENABLED | AUDIT_STATUS_BACKLOG_LIMIT | AUDIT_STATUS_BACKLOG_WAIT_TIME)

int audit_status(int type, struct audit_status *st)
{
	struct {
		struct nlmsghdr h;
		struct audit_status st;
	} m = { .h = { .nlmsg_len = NLMSG_LENGTH(type == AUDIT_SET ? sizeof(struct audit_status) : 0),
	               .nlmsg_type = (uint16_t)type, .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	               .nlmsg_seq = 1 },
	        .st = *st };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[8192];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT), err = EPROTO;

	if (fd < 0)
		return errno;
	if (sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		err = errno;
		close(fd);
		return err;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;

		if (n < (ssize_t)NLMSG_HDRLEN)
			break;
		if (h->nlmsg_type == NLMSG_ERROR) {
			err = -((const struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (err || type == AUDIT_SET)
				break;
		} else if (h->nlmsg_type == AUDIT_GET) {
			memcpy(st, NLMSG_DATA(h), sizeof(*st));
			err = 0;
			break;
		}
	}
	close(fd);
	return err;
}

/* The lock, while taken. */
static int held = -1;

/* Sets the log as the lock's file says a take found it, where it says
 * anything (a locked switch, enabled=2, is left alone: no set can move
 * it). */
static void put_back(void)
{
	struct audit_status st = { .mask = KEPT };
	char text[128];
	ssize_t n = pread(held, text, sizeof(text) - 1, 0);

	if (n <= 0)
		return;
	text[n] = '\0';
	if (sscanf(text, "%u %u %u", &st.enabled, &st.backlog_limit, &st.backlog_wait_time) != 3)
		return;
	if (st.enabled == 2)
		st.mask &= ~(unsigned)AUDIT_STATUS_ENABLED;
	audit_status(AUDIT_SET, &st);
}

int audit_take(struct audit_status *st)
{
	char text[128];
	int err, n;

	held = open(LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (held < 0)
		return errno;
	while (flock(held, LOCK_EX) && errno == EINTR)
		;
	put_back();
	*st = (struct audit_status){ 0 };
	err = audit_status(AUDIT_GET, st);
	if (!err) {
		n = snprintf(text, sizeof(text), "%u %u %u\n", st->enabled, st->backlog_limit,
		             st->backlog_wait_time);
		if (ftruncate(held, 0) || pwrite(held, text, (size_t)n, 0) != n)
			err = errno ? errno : EIO;
	}
	/* Room for a burst of other processes' records meanwhile (a log
	 * left at a backlog of one loses nearly all). */
	if (!err && st->backlog_limit < ROOM)
		audit_status(AUDIT_SET, &(struct audit_status){ .mask = AUDIT_STATUS_BACKLOG_LIMIT,
		                                                .backlog_limit = ROOM });
	if (err) {
		close(held);
		held = -1;
	}
	return err;
}

void audit_give(void)
{
	if (held < 0)
		return;
	put_back();
	if (ftruncate(held, 0)) {
		/* Left to the next take, which puts the same back. */
	}
	close(held);
	held = -1;
}

bool audit_lossy(const char *out)
{
	return strstr(out, "sbxrun: the kernel lost ") || strstr(out, "the audit log lost records") ||
	       strstr(out, "the audit log did not mark the end");
}

bool audit_lost_meanwhile;

uint32_t audit_lost(void)
{
	struct audit_status st = { 0 };

	return audit_status(AUDIT_GET, &st) ? 0 : st.lost;
}

int audit_reported(char *const argv[], char **out)
{
	int status = -1;

	*out = NULL;
	for (int i = 0; i < AUDIT_RUNS && (!*out || (audit_lossy(*out) && audit_lost_meanwhile)); i++) {
		uint32_t before = audit_lost();

		free(*out);
		status = run_scoped(NULL, argv, out);
		audit_lost_meanwhile = audit_lost() != before;
	}
	return status;
}

bool audit_lossy_part(const char *test, const char *out, const char *what)
{
	if (!audit_lossy(out))
		return false;
	ck_assert_msg(audit_lost_meanwhile, "the report says records were lost, and the kernel "
	              "lost none: %s", out);
	say_skip("SKIP %s (%s): the audit log lost records in each of %d runs (it is the machine's: "
	         "another process's burst)\n", test, what, AUDIT_RUNS);
	return true;
}
