/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config.c — the configuration parser, defaults, path MTU, memif bsize. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sr_check.h"

static struct sr_pmd_config cfg;
static char err[SR_CONFIG_ERR_MAX];

static void setup(void)
{
	sr_pmd_config_init(&cfg);
	err[0] = '\0';
}

START_TEST(test_full_file)
{
	static const char text[] =
		"# a full configuration\n"
		"eal = --log-level=debug\n"
		"eal = -d /tmp\n"
		"port = net_af_packet0,iface=veth0\n"
		"mac = 02:00:00:aa:bb:cc\n"
		"ipv4 = 192.168.7.2/24   # trailing comment\n"
		"ipv6 = fd00::2/64\n"
		"ipv6 = 2001:db8::7\n"
		"  mtu   =   4200  \n"
		"vlan = 100\n"
		"vlan_prio = 3\n"
		"hugepages = no\n"
		"mode = dedicated\n"
		"engine_lcore = 1\n"
		"engines = 2\n"
		"capture = /tmp/x.pcap\n"
		"fault = tx drop prob=5%\n"
		"fault = rx corrupt opcode=4 every=10\n"
		"fault_seed = 42\n"
		"\n";

	ck_assert_int_eq(sr_pmd_config_parse(&cfg, text, "t", err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.eal, "--log-level=debug -d /tmp");
	ck_assert_str_eq(cfg.port, "net_af_packet0,iface=veth0");
	ck_assert(cfg.has_mac);
	ck_assert_uint_eq(cfg.mac[5], 0xcc);
	ck_assert(cfg.has_ipv4);
	ck_assert_uint_eq(cfg.ipv4[0], 192);
	ck_assert_uint_eq(cfg.ipv4[3], 2);
	ck_assert_uint_eq(cfg.ipv4_prefix, 24);
	ck_assert_uint_eq(cfg.n_ipv6, 2);
	ck_assert_uint_eq(cfg.ipv6[0][0], 0xfd);
	ck_assert_uint_eq(cfg.ipv6_prefix[1], 128);
	ck_assert_uint_eq(cfg.mtu, 4200);
	ck_assert_uint_eq(cfg.vlan, 100);
	ck_assert_uint_eq(cfg.vlan_prio, 3);
	ck_assert(cfg.no_huge);
	ck_assert_int_eq(cfg.mode, SR_PMD_MODE_DEDICATED);
	ck_assert_uint_eq(cfg.engines, 2);
	ck_assert_str_eq(cfg.capture, "/tmp/x.pcap");
	ck_assert_uint_eq(cfg.fault.n, 2);
	ck_assert_uint_eq(cfg.fault.rule[0].prob_ppm, 50000);
	ck_assert_uint_eq(cfg.fault.rule[0].dir, SR_FAULT_TX);
	ck_assert_uint_eq(cfg.fault.rule[1].action, SR_FAULT_CORRUPT);
	ck_assert_int_eq(cfg.fault.rule[1].opcode, 4);
	ck_assert_uint_eq(cfg.fault.rule[1].every, 10);
	ck_assert_uint_eq(cfg.fault.rule[1].prob_ppm, 1000000);
	ck_assert_uint_eq(cfg.fault.seed, 42);
	ck_assert(!cfg.default_link);
}
END_TEST

/* Each bad line fails with its line number and a reason. */
static const struct {
	const char *text;
	const char *why;
} bad_lines[] = {
	{ .text = "colour = blue", .why = "unknown key 'colour'" },
	{ .text = "no equals sign", .why = "expected 'key = value'" },
	{ .text = "ipv4 = 10.0.0.300", .why = "not an IPv4" },
	{ .text = "ipv4 = 10.0.0.1/33", .why = "not an IPv4" },
	{ .text = "ipv6 = fd00::g", .why = "not an IPv6" },
	{ .text = "ipv6 = ff02::1", .why = "multicast" },
	{ .text = "mac = 01:00:00:00:00:01", .why = "unicast MAC" },
	{ .text = "mac = 02:00:00:00:00", .why = "unicast MAC" },
	{ .text = "mtu = 100", .why = "576..9702" },
	{ .text = "mtu = 12abc", .why = "not a number" },
	{ .text = "vlan = 4095", .why = "0..4094" },
	{ .text = "vlan = -1", .why = "not a number" },
	{ .text = "mode = turbo", .why = "inline or dedicated" },
	{ .text = "port = eth0", .why = "neither 'default'" },
	{ .text = "hugepages = maybe", .why = "yes or no" },
	{ .text = "node = 2", .why = "0..1" },
	{ .text = "fault = up drop", .why = "tx, rx or both" },
	{ .text = "fault = tx explode", .why = "drop, dup" },
	{ .text = "fault = tx drop prob=2", .why = "bad fault term" },
	{ .text = "fault = tx drop psn=99999999", .why = "bad fault term" },
	{ .text = "burst = 0", .why = "1..64" },
	{ .text = "engines = 0", .why = "1..4" },
	{ .text = "engines = 5", .why = "1..4" },
	{ .text = "ecn = ce", .why = "off, ect0 or ect1" },
	{ .text = "cc = timely", .why = "off or dcqcn" },
	{ .text = "dcqcn = rpg_foo=1", .why = "no DCQCN parameter 'rpg_foo'" },
	{ .text = "dcqcn = rpg_gd", .why = "not name=value" },
	{ .text = "dcqcn = rpg_gd=0", .why = "out of range" },
	{ .text = "dcqcn = cnp_dscp=64", .why = "out of range" },
	{ .text = "dcqcn = clamp_tgt_rate=2", .why = "out of range" },
};

START_TEST(test_bad_line)
{
	char text[128];
	int rc;

	snprintf(text, sizeof(text), "# ok\n%s\n", bad_lines[_i].text);
	rc = sr_pmd_config_parse(&cfg, text, "f.conf", err, sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_msg(strncmp(err, "f.conf:2: ", 10) == 0, "%s", err);
	ck_assert_msg(strstr(err, bad_lines[_i].why) != NULL, "%s", err);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* ECT(0) unless told otherwise (docs/congestion.md). */
START_TEST(test_ecn)
{
	ck_assert_uint_eq(cfg.ecn, 2);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "ecn = ect1", "t", err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(cfg.ecn, 1);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "ecn = off", "t", err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(cfg.ecn, 0);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "ecn = ect0", "t", err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(cfg.ecn, 2);
}
END_TEST

/* line_rate: 0 (the port's speed) unless set; Mbit/s, bounded. */
START_TEST(test_line_rate)
{
	ck_assert_uint_eq(cfg.line_rate, 0);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "line_rate = 100", "t", err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(cfg.line_rate, 100);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "line_rate = 10000001", "t",
					     err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "line_rate = -1", "t", err,
					     sizeof(err)), -EINVAL);
	ck_assert_uint_eq(cfg.line_rate, 100);
}
END_TEST

/* window: 0 (the default) unless set; PSNs, 16..1024. */
START_TEST(test_window)
{
	ck_assert_uint_eq(cfg.window, 0);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "window = 512", "t", err,
					     sizeof(err)), 0);
	ck_assert_uint_eq(cfg.window, 512);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "window = 15", "t", err,
					     sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "window = 1025", "t", err,
					     sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "window = lots", "t", err,
					     sizeof(err)), -EINVAL);
	ck_assert_uint_eq(cfg.window, 512);
}
END_TEST

/* tx_ref_min: 4096 unless set; bytes 1..65536, or off (0). */
START_TEST(test_tx_ref_min)
{
	ck_assert_uint_eq(cfg.tx_ref_min, SR_CONFIG_TX_REF_MIN);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "tx_ref_min = 1024", "t",
					     err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.tx_ref_min, 1024);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "tx_ref_min = off", "t",
					     err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.tx_ref_min, 0);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "tx_ref_min = 0", "t", err,
					     sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "tx_ref_min = 65537", "t",
					     err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "tx_ref_min = big", "t",
					     err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(cfg.tx_ref_min, 0);
}
END_TEST

/* DCQCN on with ConnectX's defaults; every parameter settable by name. */
START_TEST(test_dcqcn)
{
	ck_assert(cfg.cc);
	ck_assert_uint_eq(cfg.dcqcn.rpg_time_reset, 300);
	ck_assert_uint_eq(cfg.dcqcn.dce_tcp_g, 1019);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg,
		"cc = off\n"
		"dcqcn = rpg_time_reset=55\n"
		"dcqcn = rpg_byte_reset=10485760\n"
		"dcqcn = rpg_threshold=5\n"
		"dcqcn = rpg_max_rate=40000\n"
		"dcqcn = rpg_ai_rate=40\n"
		"dcqcn = rpg_hai_rate=100\n"
		"dcqcn = rpg_gd=12\n"
		"dcqcn = rpg_min_dec_fac=60\n"
		"dcqcn = rpg_min_rate=10\n"
		"dcqcn = rate_to_set_on_first_cnp=2000\n"
		"dcqcn = dce_tcp_g=1020\n"
		"dcqcn = dce_tcp_rtt=55\n"
		"dcqcn = rate_reduce_monitor_period=50\n"
		"dcqcn = initial_alpha_value=512\n"
		"dcqcn = clamp_tgt_rate=1\n"
		"dcqcn = clamp_tgt_rate_after_time_inc=0\n"
		"dcqcn = min_time_between_cnps=50\n"
		"dcqcn = cnp_dscp=26\n"
		"dcqcn = cnp_802p_prio=3\n", "t", err, sizeof(err)), 0);
	ck_assert(!cfg.cc);
	ck_assert_uint_eq(cfg.dcqcn.rpg_time_reset, 55);
	ck_assert_uint_eq(cfg.dcqcn.rpg_byte_reset, 10485760);
	ck_assert_uint_eq(cfg.dcqcn.rpg_threshold, 5);
	ck_assert_uint_eq(cfg.dcqcn.rpg_max_rate, 40000);
	ck_assert_uint_eq(cfg.dcqcn.rpg_ai_rate, 40);
	ck_assert_uint_eq(cfg.dcqcn.rpg_hai_rate, 100);
	ck_assert_uint_eq(cfg.dcqcn.rpg_gd, 12);
	ck_assert_uint_eq(cfg.dcqcn.rpg_min_dec_fac, 60);
	ck_assert_uint_eq(cfg.dcqcn.rpg_min_rate, 10);
	ck_assert_uint_eq(cfg.dcqcn.rate_to_set_on_first_cnp, 2000);
	ck_assert_uint_eq(cfg.dcqcn.dce_tcp_g, 1020);
	ck_assert_uint_eq(cfg.dcqcn.dce_tcp_rtt, 55);
	ck_assert_uint_eq(cfg.dcqcn.rate_reduce_monitor_period, 50);
	ck_assert_uint_eq(cfg.dcqcn.initial_alpha_value, 512);
	ck_assert(cfg.dcqcn.clamp_tgt_rate);
	ck_assert(!cfg.dcqcn.clamp_tgt_rate_after_time_inc);
	ck_assert_uint_eq(cfg.dcqcn.min_time_between_cnps, 50);
	ck_assert_uint_eq(cfg.dcqcn.cnp_dscp, 26);
	ck_assert_uint_eq(cfg.dcqcn.cnp_802p_prio, 3);
}
END_TEST

START_TEST(test_pci_and_default_port)
{
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "port = 0000:03:00.1", "t",
					     err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.port, "0000:03:00.1");
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "port = 03:00.1", "t", err,
					     sizeof(err)), 0);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "port = default", "t", err,
					     sizeof(err)), 0);
	ck_assert(cfg.default_link);
}
END_TEST

/* port = iface:NAME (a host NIC) and its keys; load refuses addresses. */
START_TEST(test_iface_port)
{
	char path[] = "/tmp/sroce-test-config-XXXXXX";
	int fd, lock_fd;

	ck_assert_int_eq(sr_pmd_config_parse(&cfg,
		"port = iface:eth7\niface_mode = af_packet\niface_nft = yes\n",
		"t", err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.iface, "eth7");
	ck_assert_str_eq(cfg.port, "iface:eth7");
	ck_assert(!cfg.default_link);
	ck_assert_int_eq(cfg.iface_mode, SR_PMD_IFACE_PACKET);
	ck_assert(cfg.iface_nft);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "iface_mode = af_xdp", "t",
					     err, sizeof(err)), 0);
	ck_assert_int_eq(cfg.iface_mode, SR_PMD_IFACE_XDP);
	/* another port kind forgets the interface */
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "port = net_ring0", "t",
					     err, sizeof(err)), 0);
	ck_assert_str_eq(cfg.iface, "");
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "port = iface:", "t", err,
					     sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg,
		"port = iface:a-name-of-16-char", "t", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "port = iface:a,b", "t",
					     err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "iface_mode = xdp", "t",
					     err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "auto, af_xdp or af_packet"));

	/* no ipv4 needed; one given is refused */
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(write(fd, "port = iface:eth7\n", 18), 0);
	ck_assert_int_eq(sr_pmd_config_load_path(&cfg, path, &lock_fd, err,
						 sizeof(err)), 0);
	ck_assert_int_gt(write(fd, "ipv4 = 10.0.0.1\n", 16), 0);
	close(fd);
	ck_assert_int_eq(sr_pmd_config_load_path(&cfg, path, &lock_fd, err,
						 sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "from the interface"));
	unlink(path);
}
END_TEST

START_TEST(test_default_link_nodes)
{
	struct sr_pmd_config c1;

	strcpy(cfg.run_dir, "/tmp/rd");
	ck_assert_int_eq(sr_pmd_config_default_link(&cfg, 0, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(cfg.port, "role=server"));
	ck_assert_ptr_nonnull(strstr(cfg.port, "socket=/tmp/rd/memif.sock"));
	sr_pmd_config_init(&c1);
	strcpy(c1.run_dir, "/tmp/rd");
	ck_assert_int_eq(sr_pmd_config_default_link(&c1, 1, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(c1.port, "role=client"));
	/* Distinct addresses, same subnet. */
	ck_assert_uint_eq(cfg.ipv4[3], 1);
	ck_assert_uint_eq(c1.ipv4[3], 2);
	ck_assert_mem_ne(cfg.mac, c1.mac, 6);
	ck_assert_mem_ne(cfg.ipv6[0], c1.ipv6[0], 16);
	ck_assert_uint_eq(cfg.mtu, 9000);
	ck_assert_int_eq(sr_pmd_config_default_link(&c1, 2, err, sizeof(err)),
			 -EINVAL);
}
END_TEST

START_TEST(test_default_keeps_overrides)
{
	ck_assert_int_eq(sr_pmd_config_parse(&cfg, "ipv4 = 10.9.9.9\nmtu = 1500",
					     "t", err, sizeof(err)), 0);
	ck_assert_int_eq(sr_pmd_config_default_link(&cfg, 1, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.ipv4[0], 10);
	ck_assert_uint_eq(cfg.ipv4[1], 9);
	ck_assert_uint_eq(cfg.mtu, 1500);
}
END_TEST

START_TEST(test_claim_node)
{
	char dir[] = "/tmp/sroce-claim-XXXXXX", path[sizeof(dir) + 16];
	int fd0, fd1;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sr_pmd_config_claim_node(dir, &fd0), 0);
	ck_assert_int_ge(fd0, 0);
	/* flock is per open file: a second open in this process is refused too. */
	ck_assert_int_eq(sr_pmd_config_claim_node(dir, &fd1), 1);
	ck_assert_int_eq(fd1, -1);
	close(fd0);
	ck_assert_int_eq(sr_pmd_config_claim_node(dir, &fd1), 0);
	close(fd1);
	snprintf(path, sizeof(path), "%s/memif.lock", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_load_env)
{
	char path[] = "/tmp/sroce-conf-XXXXXX";
	int fd = mkstemp(path), lock = -1;
	static const char nop[] = "mtu = 1500\n";

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, nop, sizeof(nop) - 1), sizeof(nop) - 1);
	close(fd);
	setenv("SROCE_CONFIG", path, 1);
	unsetenv("SROCE_NODE");
	/* A file without a port is an error. */
	ck_assert_int_eq(sr_pmd_config_load(&cfg, &lock, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "no port") != NULL, "%s", err);
	setenv("SROCE_CONFIG", "/nonexistent/sroce.conf", 1);
	ck_assert_int_eq(sr_pmd_config_load(&cfg, &lock, err, sizeof(err)),
			 -ENOENT);
	/* No file: the default link, node from SROCE_NODE. */
	unsetenv("SROCE_CONFIG");
	setenv("SROCE_NODE", "1", 1);
	setenv("SROCE_RUN_DIR", "/tmp", 1);
	ck_assert_int_eq(sr_pmd_config_load(&cfg, &lock, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(cfg.port, "role=client"));
	ck_assert_int_eq(lock, -1);
	setenv("SROCE_NODE", "7", 1);
	ck_assert_int_eq(sr_pmd_config_load(&cfg, &lock, err, sizeof(err)),
			 -EINVAL);
	unlink(path);
}
END_TEST

START_TEST(test_path_mtu)
{
	static const struct {
		uint32_t ip_mtu, path_mtu;
	} t[] = {
		{ .ip_mtu = 9000, .path_mtu = 4096 },
		{ .ip_mtu = 4180, .path_mtu = 4096 },
		{ .ip_mtu = 4179, .path_mtu = 2048 },
		{ .ip_mtu = 1500, .path_mtu = 1024 },
		{ .ip_mtu = 1107, .path_mtu = 512 },
		{ .ip_mtu = 576, .path_mtu = 256 },
		{ .ip_mtu = 300, .path_mtu = 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_uint_eq(sr_pmd_path_mtu(t[i].ip_mtu), t[i].path_mtu);
}
END_TEST

/* memif and af_packet carry a frame in one buffer: sized by the MTU. */
START_TEST(test_port_buffers)
{
	static const struct {
		const char *port;
		uint32_t mtu;
		const char *want;   /* the port string afterwards */
	} t[] = {
		{ "net_memif0,role=server", 9000, "net_memif0,role=server,bsize=9216" },
		{ "net_memif0,role=client", 1500, "net_memif0,role=client" },
		{ "net_memif0,role=client", 0, "net_memif0,role=client" },
		{ "net_memif0,role=client", 4000, "net_memif0,role=client,bsize=4096" },
		{ "net_memif0,bsize=4096", 9000, "net_memif0,bsize=4096" },
		{ "net_ring0", 9000, "net_ring0" },
		{ "net_af_packet0,iface=x", 9000,
		  "net_af_packet0,iface=x,framesz=16384,blocksz=16384" },
		{ "net_af_packet0,iface=x", 1500, "net_af_packet0,iface=x" },
		{ "net_af_packet0,iface=x", 1994, "net_af_packet0,iface=x" },
		{ "net_af_packet0,iface=x", 1995,
		  "net_af_packet0,iface=x,framesz=4096,blocksz=4096" },
		{ "net_af_packet0,iface=x", 4000,
		  "net_af_packet0,iface=x,framesz=4096,blocksz=4096" },
		{ "net_af_packet0,iface=x", 4200,
		  "net_af_packet0,iface=x,framesz=8192,blocksz=8192" },
		{ "net_af_packet0,iface=x,framesz=4096", 9000,
		  "net_af_packet0,iface=x,framesz=4096" },
		{ "net_af_packet0,iface=x,blocksz=65536", 9000,
		  "net_af_packet0,iface=x,blocksz=65536,framesz=16384" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(cfg.port, sizeof(cfg.port), "%s", t[i].port);
		cfg.mtu = t[i].mtu;
		ck_assert_int_eq(sr_pmd_config_port_buffers(&cfg, err, sizeof(err)), 0);
		ck_assert_str_eq(cfg.port, t[i].want);
	}
	/* The default link gets it through sr_pmd_config_load(). */
	unsetenv("SROCE_CONFIG");
	setenv("SROCE_NODE", "0", 1);
	setenv("SROCE_RUN_DIR", "/tmp", 1);
	int lock = -1;

	ck_assert_int_eq(sr_pmd_config_load(&cfg, &lock, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(cfg.port, ",bsize=9216"));
	/* A port string with no room left is an error, not a truncation. */
	memset(cfg.port, 'x', sizeof(cfg.port) - 1);
	memcpy(cfg.port, "net_memif0,", 11);
	cfg.port[sizeof(cfg.port) - 1] = '\0';
	cfg.mtu = 9000;
	ck_assert_int_eq(sr_pmd_config_port_buffers(&cfg, err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(strlen(cfg.port), sizeof(cfg.port) - 1);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("pmd/config");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_full_file);
	tcase_add_loop_test(tc, test_bad_line, 0,
			    sizeof(bad_lines) / sizeof(bad_lines[0]));
	tcase_add_test(tc, test_pci_and_default_port);
	tcase_add_test(tc, test_iface_port);
	tcase_add_test(tc, test_ecn);
	tcase_add_test(tc, test_dcqcn);
	tcase_add_test(tc, test_line_rate);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_tx_ref_min);
	tcase_add_test(tc, test_default_link_nodes);
	tcase_add_test(tc, test_default_keeps_overrides);
	tcase_add_test(tc, test_claim_node);
	tcase_add_test(tc, test_load_env);
	tcase_add_test(tc, test_path_mtu);
	tcase_add_test(tc, test_port_buffers);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(config_suite)
