// SPDX-License-Identifier: GPL-2.0
/*
 * Device overlay: random unaligned writes, page drops and reads over two
 * backing files, checked against a model (each file's bytes with the
 * writes applied, a dropped page back to the file's), with the page count
 * checked after every step; and the device numbering by file identity.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "suites.h"
#include "kernel-shared/dev-overlay.h"

#define OV_FILE_SIZE	(1U << 20)
#define OV_PAGES	(OV_FILE_SIZE / BTRFS_OVERLAY_PAGE)

struct ov_model {
	int fd[2];
	int dev[2];
	u8 *disk[2];		/* what each file holds */
	u8 *want[2];		/* what a read through the overlay returns */
	bool held[2][OV_PAGES];
	u64 nr_held;
	uint64_t rand;
};

static unsigned int rnd_below(struct ov_model *m, unsigned int n)
{
	return (unsigned int)((test_rand(&m->rand) >> 11) % n);
}

static int backing_file(struct ov_model *m, u8 *data)
{
	char path[] = "/tmp/ghee-unit-ov.XXXXXX";
	int fd = mkstemp(path);
	unsigned int i;

	REQUIRE(fd >= 0);
	unlink(path);
	for (i = 0; i < OV_FILE_SIZE; i++)
		data[i] = (u8)test_rand(&m->rand);
	REQUIRE(pwrite(fd, data, OV_FILE_SIZE, 0) == (ssize_t)OV_FILE_SIZE);
	return fd;
}

static void model_init(struct ov_model *m, struct btrfs_overlay *ov, uint64_t seed)
{
	int d;

	memset(m, 0, sizeof(*m));
	m->rand = seed;
	for (d = 0; d < 2; d++) {
		m->disk[d] = malloc(OV_FILE_SIZE);
		m->want[d] = malloc(OV_FILE_SIZE);
		REQUIRE(m->disk[d] && m->want[d]);
		m->fd[d] = backing_file(m, m->disk[d]);
		memcpy(m->want[d], m->disk[d], OV_FILE_SIZE);
		m->dev[d] = btrfs_overlay_device(ov, m->fd[d]);
		REQUIRE_INT(m->dev[d], ==, d);
	}
}

static void model_free(struct ov_model *m)
{
	int d;

	for (d = 0; d < 2; d++) {
		close(m->fd[d]);
		free(m->disk[d]);
		free(m->want[d]);
	}
}

static void step_write(struct ov_model *m, struct btrfs_overlay *ov)
{
	int d = rnd_below(m, 2);
	u64 off = rnd_below(m, OV_FILE_SIZE);
	u64 len = 1 + rnd_below(m, rnd_below(m, 4) ? 5000 : 40000);
	u8 buf[40000];
	u64 i, p;

	if (off + len > OV_FILE_SIZE)
		len = OV_FILE_SIZE - off;
	for (i = 0; i < len; i++)
		buf[i] = (u8)test_rand(&m->rand);
	REQUIRE_INT(btrfs_overlay_write(ov, m->dev[d], m->fd[d], buf, len, off), ==, 0);
	memcpy(m->want[d] + off, buf, len);
	for (p = off / BTRFS_OVERLAY_PAGE; p <= (off + len - 1) / BTRFS_OVERLAY_PAGE; p++) {
		if (!m->held[d][p])
			m->nr_held++;
		m->held[d][p] = true;
	}
}

static void step_drop(struct ov_model *m, struct btrfs_overlay *ov)
{
	int d = rnd_below(m, 2);
	u64 p = rnd_below(m, OV_PAGES);

	btrfs_overlay_drop_page(ov, m->dev[d], p * BTRFS_OVERLAY_PAGE);
	if (m->held[d][p])
		m->nr_held--;
	m->held[d][p] = false;
	memcpy(m->want[d] + p * BTRFS_OVERLAY_PAGE, m->disk[d] + p * BTRFS_OVERLAY_PAGE,
	       BTRFS_OVERLAY_PAGE);
}

static void step_read(struct ov_model *m, struct btrfs_overlay *ov)
{
	int d = rnd_below(m, 2);
	u64 off = rnd_below(m, OV_FILE_SIZE);
	u64 len = 1 + rnd_below(m, 70000);
	u8 page[BTRFS_OVERLAY_PAGE];
	static u8 buf[70000];
	u64 p;

	if (off + len > OV_FILE_SIZE)
		len = OV_FILE_SIZE - off;
	REQUIRE(pread(m->fd[d], buf, len, off) == (ssize_t)len);
	btrfs_overlay_read(ov, m->dev[d], buf, len, off);
	REQUIRE(!memcmp(buf, m->want[d] + off, len));
	p = off / BTRFS_OVERLAY_PAGE;
	REQUIRE_INT(btrfs_overlay_get_page(ov, m->dev[d], p * BTRFS_OVERLAY_PAGE, page),
		    ==, m->held[d][p]);
	if (m->held[d][p])
		REQUIRE(!memcmp(page, m->want[d] + p * BTRFS_OVERLAY_PAGE,
				BTRFS_OVERLAY_PAGE));
}

START_TEST(test_random_model)
{
	struct btrfs_overlay *ov = btrfs_overlay_create(true);
	struct ov_model m;
	int i;

	REQUIRE(ov);
	REQUIRE(btrfs_overlay_captures_all(ov));
	model_init(&m, ov, 0x9e3779b97f4a7c15ULL + (uint64_t)_i * 7919);
	for (i = 0; i < 6000; i++) {
		unsigned int op = rnd_below(&m, 10);

		if (op < 4)
			step_write(&m, ov);
		else if (op < 6)
			step_drop(&m, ov);
		else
			step_read(&m, ov);
		REQUIRE_UINT(btrfs_overlay_nr_pages(ov), ==, m.nr_held);
	}
	/* the files themselves were never written */
	for (i = 0; i < 2; i++) {
		u8 *now = malloc(OV_FILE_SIZE);

		REQUIRE(now);
		REQUIRE(pread(m.fd[i], now, OV_FILE_SIZE, 0) == (ssize_t)OV_FILE_SIZE);
		REQUIRE(!memcmp(now, m.disk[i], OV_FILE_SIZE));
		free(now);
	}
	model_free(&m);
	btrfs_overlay_free(ov);
}
END_TEST

START_TEST(test_device_identity)
{
	struct btrfs_overlay *ov = btrfs_overlay_create(false);
	char path[] = "/tmp/ghee-unit-ov.XXXXXX";
	int fd = mkstemp(path), again, other;

	REQUIRE(ov && fd >= 0);
	REQUIRE(!btrfs_overlay_captures_all(ov));
	again = open(path, O_RDONLY);
	other = open("/dev/null", O_RDONLY);
	REQUIRE(again >= 0 && other >= 0);
	REQUIRE_INT(btrfs_overlay_device(ov, fd), ==, 0);
	/* the same file under a second descriptor is the same device */
	REQUIRE_INT(btrfs_overlay_device(ov, again), ==, 0);
	REQUIRE_INT(btrfs_overlay_device(ov, other), ==, 1);
	REQUIRE_INT(btrfs_overlay_write(ov, 0, fd, "abc", 3, 4097), ==, 0);
	/* the rest of a partly written page comes from the file (empty: zeros) */
	{
		u8 page[BTRFS_OVERLAY_PAGE], zero[BTRFS_OVERLAY_PAGE] = { 0 };

		REQUIRE(btrfs_overlay_get_page(ov, 0, 4096, page));
		REQUIRE(page[0] == 0 && !memcmp(page + 1, "abc", 3));
		REQUIRE(!memcmp(page + 4, zero, sizeof(page) - 4));
		REQUIRE(!btrfs_overlay_get_page(ov, 1, 4096, page));
	}
	close(fd);
	close(again);
	close(other);
	unlink(path);
	btrfs_overlay_free(ov);
}
END_TEST

Suite *dev_overlay_suite(void)
{
	Suite *s = suite_create("dev_overlay");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_random_model, 0, 3);
	tcase_add_test(tc, test_device_identity);
	suite_add_tcase(s, tc);
	return s;
}
