/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config.c — the key = value parser, the default link and the start-up path.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "core/dev.h"        /* SR_WINDOW_MIN, SR_WINDOW_MAX */

#define SR_DEFAULT_RUN_DIR "/run/sroce"
#define SR_DEFAULT_STATS_DIR "/dev/shm"

typedef int (*sr_config_key_fn)(struct sr_pmd_config *cfg, const char *val,
				char *why, size_t whylen);

/* Every key: X(name, handler).  CONFIG.md documents them in this order. */
#define SR_CONFIG_KEYS(X)                  \
	X(eal, sr_key_eal)                 \
	X(port, sr_key_port)               \
	X(node, sr_key_node)               \
	X(run_dir, sr_key_run_dir)         \
	X(iface_mode, sr_key_iface_mode)   \
	X(iface_nft, sr_key_iface_nft)     \
	X(mac, sr_key_mac)                 \
	X(ipv4, sr_key_ipv4)               \
	X(ipv6, sr_key_ipv6)               \
	X(mtu, sr_key_mtu)                 \
	X(vlan, sr_key_vlan)               \
	X(vlan_prio, sr_key_vlan_prio)     \
	X(hugepages, sr_key_hugepages)     \
	X(mode, sr_key_mode)               \
	X(lcores, sr_key_lcores)           \
	X(engine_lcore, sr_key_engine_lcore) \
	X(engines, sr_key_engines)         \
	X(mbufs, sr_key_mbufs)             \
	X(rx_desc, sr_key_rx_desc)         \
	X(tx_desc, sr_key_tx_desc)         \
	X(burst, sr_key_burst)             \
	X(capture, sr_key_capture)         \
	X(stats_dir, sr_key_stats_dir)     \
	X(fault, sr_key_fault)             \
	X(fault_seed, sr_key_fault_seed)   \
	X(ecn, sr_key_ecn)                 \
	X(cc, sr_key_cc)                   \
	X(dcqcn, sr_key_dcqcn)             \
	X(line_rate, sr_key_line_rate)     \
	X(window, sr_key_window)           \
	X(tx_ref_min, sr_key_tx_ref_min)

static int sr_copy_str(char *dst, size_t size, const char *val, char *why,
		       size_t whylen)
{
	if (strlen(val) >= size) {
		snprintf(why, whylen, "value longer than %zu characters",
			 size - 1);
		return -EINVAL;
	}
	strcpy(dst, val);
	return 0;
}

static int sr_parse_uint(const char *val, unsigned long lo, unsigned long hi,
			 unsigned long *out, char *why, size_t whylen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 0);
	if (*val == '\0' || *val == '-' || errno || *end != '\0' || v < lo ||
	    v > hi) {
		snprintf(why, whylen, "'%s' is not a number in %lu..%lu", val,
			 lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int sr_key_eal(struct sr_pmd_config *cfg, const char *val, char *why,
		      size_t whylen)
{
	size_t have = strlen(cfg->eal);

	/* Repeated eal lines add up. */
	if (have + 1 + strlen(val) >= sizeof(cfg->eal)) {
		snprintf(why, whylen, "EAL arguments too long");
		return -EINVAL;
	}
	if (have)
		cfg->eal[have++] = ' ';
	strcpy(cfg->eal + have, val);
	return 0;
}

/* A vdev spec (net_<driver><n>[,args]) or a PCI address. */
static int sr_key_port(struct sr_pmd_config *cfg, const char *val, char *why,
		       size_t whylen)
{
	unsigned int d, b, s, f;
	char tail;

	if (strcmp(val, "default") == 0) {
		cfg->default_link = true;
		cfg->port[0] = '\0';
		cfg->iface[0] = '\0';
		return 0;
	}
	/* A host NIC shared with the kernel (hostnic.c picks the driver). */
	if (strncmp(val, "iface:", 6) == 0) {
		const char *name = val + 6;
		size_t n = strlen(name);

		if (n == 0 || n >= sizeof(cfg->iface) ||
		    strcspn(name, " \t/,:=") != n) {
			snprintf(why, whylen,
				 "port '%s': want iface:NAME with an interface name of 1..15 characters",
				 val);
			return -EINVAL;
		}
		strcpy(cfg->iface, name);
		cfg->default_link = false;
		return sr_copy_str(cfg->port, sizeof(cfg->port), val, why,
				   whylen);
	}
	cfg->iface[0] = '\0';
	if (strncmp(val, "net_", 4) != 0 &&
	    sscanf(val, "%x:%x:%x.%x%c", &d, &b, &s, &f, &tail) != 4 &&
	    sscanf(val, "%x:%x.%x%c", &b, &s, &f, &tail) != 3) {
		snprintf(why, whylen,
			 "port '%s' is neither 'default', a vdev (net_...) nor a PCI address",
			 val);
		return -EINVAL;
	}
	cfg->default_link = false;
	return sr_copy_str(cfg->port, sizeof(cfg->port), val, why, whylen);
}

static int sr_key_node(struct sr_pmd_config *cfg, const char *val, char *why,
		       size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 0, 1, &v, why, whylen))
		return -EINVAL;
	cfg->node = (int)v;
	return 0;
}

static int sr_key_run_dir(struct sr_pmd_config *cfg, const char *val,
			  char *why, size_t whylen)
{
	return sr_copy_str(cfg->run_dir, sizeof(cfg->run_dir), val, why,
			   whylen);
}

static int sr_key_iface_mode(struct sr_pmd_config *cfg, const char *val,
			     char *why, size_t whylen)
{
	if (strcmp(val, "auto") == 0) {
		cfg->iface_mode = SR_PMD_IFACE_AUTO;
	} else if (strcmp(val, "af_xdp") == 0) {
		cfg->iface_mode = SR_PMD_IFACE_XDP;
	} else if (strcmp(val, "af_packet") == 0) {
		cfg->iface_mode = SR_PMD_IFACE_PACKET;
	} else {
		snprintf(why, whylen,
			 "iface_mode '%s' is not auto, af_xdp or af_packet", val);
		return -EINVAL;
	}
	return 0;
}

static int sr_parse_bool(const char *val, bool *out, char *why,
			 size_t whylen);

static int sr_key_iface_nft(struct sr_pmd_config *cfg, const char *val,
			    char *why, size_t whylen)
{
	return sr_parse_bool(val, &cfg->iface_nft, why, whylen);
}

static int sr_key_mac(struct sr_pmd_config *cfg, const char *val, char *why,
		      size_t whylen)
{
	unsigned int m[6];
	char tail;

	if (sscanf(val, "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2],
		   &m[3], &m[4], &m[5], &tail) != 6 || (m[0] & 1)) {
		snprintf(why, whylen, "'%s' is not a unicast MAC address", val);
		return -EINVAL;
	}
	for (int i = 0; i < 6; i++)
		cfg->mac[i] = (uint8_t)m[i];
	cfg->has_mac = true;
	return 0;
}

/* "addr[/prefix]" into addr (inet_pton) and prefix. */
static int sr_parse_prefixed(int af, const char *val, void *addr,
			     uint8_t *prefix, char *why, size_t whylen)
{
	unsigned long max = af == AF_INET ? 32 : 128, p = max;
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;

	if (strlen(val) >= sizeof(buf))
		goto out_bad;
	strcpy(buf, val);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (sr_parse_uint(slash + 1, 1, max, &p, why, whylen))
			goto out_bad;
	}
	if (inet_pton(af, buf, addr) != 1)
		goto out_bad;
	*prefix = (uint8_t)p;
	return 0;
out_bad:
	snprintf(why, whylen, "'%s' is not an %s address[/prefix]", val,
		 af == AF_INET ? "IPv4" : "IPv6");
	return -EINVAL;
}

static int sr_key_ipv4(struct sr_pmd_config *cfg, const char *val, char *why,
		       size_t whylen)
{
	if (sr_parse_prefixed(AF_INET, val, cfg->ipv4, &cfg->ipv4_prefix, why,
			      whylen))
		return -EINVAL;
	cfg->has_ipv4 = true;
	return 0;
}

static int sr_key_ipv6(struct sr_pmd_config *cfg, const char *val, char *why,
		       size_t whylen)
{
	uint32_t i = cfg->n_ipv6;

	if (i == SR_CONFIG_IPV6_MAX) {
		snprintf(why, whylen, "more than %d ipv6 addresses",
			 SR_CONFIG_IPV6_MAX);
		return -EINVAL;
	}
	if (sr_parse_prefixed(AF_INET6, val, cfg->ipv6[i],
			      &cfg->ipv6_prefix[i], why, whylen))
		return -EINVAL;
	if (cfg->ipv6[i][0] == 0xff) {
		snprintf(why, whylen, "'%s' is a multicast address", val);
		return -EINVAL;
	}
	cfg->n_ipv6++;
	return 0;
}

static int sr_key_mtu(struct sr_pmd_config *cfg, const char *val, char *why,
		      size_t whylen)
{
	unsigned long v;

	if (strcmp(val, "0") == 0 || strcmp(val, "port") == 0) {
		cfg->mtu = 0;
		return 0;
	}
	if (sr_parse_uint(val, 576, 9702, &v, why, whylen))
		return -EINVAL;
	cfg->mtu = (uint32_t)v;
	return 0;
}

static int sr_key_vlan(struct sr_pmd_config *cfg, const char *val, char *why,
		       size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 0, 4094, &v, why, whylen))
		return -EINVAL;
	cfg->vlan = (uint16_t)v;
	return 0;
}

static int sr_key_vlan_prio(struct sr_pmd_config *cfg, const char *val,
			    char *why, size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 0, 7, &v, why, whylen))
		return -EINVAL;
	cfg->vlan_prio = (uint8_t)v;
	return 0;
}

static int sr_parse_bool(const char *val, bool *out, char *why, size_t whylen)
{
	static const struct {
		const char *word;
		bool v;
	} words[] = {
		{ .word = "yes", .v = true },  { .word = "no", .v = false },
		{ .word = "on", .v = true },   { .word = "off", .v = false },
		{ .word = "true", .v = true }, { .word = "false", .v = false },
		{ .word = "1", .v = true },    { .word = "0", .v = false },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(val, words[i].word) == 0) {
			*out = words[i].v;
			return 0;
		}
	snprintf(why, whylen, "'%s' is not yes or no", val);
	return -EINVAL;
}

static int sr_key_hugepages(struct sr_pmd_config *cfg, const char *val,
			    char *why, size_t whylen)
{
	bool huge;

	if (strcmp(val, "auto") == 0) {
		cfg->no_huge = !sr_pmd_config_hugepages_free();
		return 0;
	}
	if (sr_parse_bool(val, &huge, why, whylen))
		return -EINVAL;
	cfg->no_huge = !huge;
	return 0;
}

static int sr_key_mode(struct sr_pmd_config *cfg, const char *val, char *why,
		       size_t whylen)
{
	if (strcmp(val, "inline") == 0) {
		cfg->mode = SR_PMD_MODE_INLINE;
	} else if (strcmp(val, "dedicated") == 0) {
		cfg->mode = SR_PMD_MODE_DEDICATED;
	} else {
		snprintf(why, whylen, "mode '%s' is not inline or dedicated",
			 val);
		return -EINVAL;
	}
	return 0;
}

static int sr_key_lcores(struct sr_pmd_config *cfg, const char *val,
			 char *why, size_t whylen)
{
	return sr_copy_str(cfg->lcores, sizeof(cfg->lcores), val, why, whylen);
}

static int sr_key_engine_lcore(struct sr_pmd_config *cfg, const char *val,
			       char *why, size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 1, 127, &v, why, whylen))
		return -EINVAL;
	cfg->engine_lcore = (uint32_t)v;
	return 0;
}

static int sr_key_engines(struct sr_pmd_config *cfg, const char *val,
			  char *why, size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 1, SR_PMD_ENGINES_MAX, &v, why, whylen))
		return -EINVAL;
	cfg->engines = (uint32_t)v;
	return 0;
}

static int sr_key_mbufs(struct sr_pmd_config *cfg, const char *val, char *why,
			size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 512, 1u << 20, &v, why, whylen))
		return -EINVAL;
	cfg->mbufs = (uint32_t)v;
	return 0;
}

static int sr_key_desc(uint32_t *out, const char *val, char *why,
		       size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 32, 16384, &v, why, whylen))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int sr_key_rx_desc(struct sr_pmd_config *cfg, const char *val,
			  char *why, size_t whylen)
{
	return sr_key_desc(&cfg->rx_desc, val, why, whylen);
}

static int sr_key_tx_desc(struct sr_pmd_config *cfg, const char *val,
			  char *why, size_t whylen)
{
	return sr_key_desc(&cfg->tx_desc, val, why, whylen);
}

static int sr_key_burst(struct sr_pmd_config *cfg, const char *val, char *why,
			size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 1, SR_CONFIG_BURST_MAX, &v, why, whylen))
		return -EINVAL;
	cfg->burst = (uint32_t)v;
	return 0;
}

static int sr_key_capture(struct sr_pmd_config *cfg, const char *val,
			  char *why, size_t whylen)
{
	if (strcmp(val, "off") == 0)
		val = "";
	return sr_copy_str(cfg->capture, sizeof(cfg->capture), val, why,
			   whylen);
}

static int sr_key_stats_dir(struct sr_pmd_config *cfg, const char *val,
			    char *why, size_t whylen)
{
	if (strcmp(val, "off") == 0)
		val = "";
	return sr_copy_str(cfg->stats_dir, sizeof(cfg->stats_dir), val, why,
			   whylen);
}

static int sr_key_fault(struct sr_pmd_config *cfg, const char *val, char *why,
			size_t whylen)
{
	struct sr_fault_set *set = &cfg->fault;

	if (strcmp(val, "off") == 0) {
		set->n = 0;
		return 0;
	}
	if (set->n == SR_FAULT_RULES_MAX) {
		snprintf(why, whylen, "more than %d fault rules",
			 SR_FAULT_RULES_MAX);
		return -EINVAL;
	}
	if (sr_fault_rule_parse(&set->rule[set->n], val, why, whylen))
		return -EINVAL;
	set->n++;
	return 0;
}

static int sr_key_fault_seed(struct sr_pmd_config *cfg, const char *val,
			     char *why, size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 0, ULONG_MAX, &v, why, whylen))
		return -EINVAL;
	cfg->fault.seed = v;
	return 0;
}

/* ECN codepoint of sent RoCEv2 packets (RFC 3168 values). */
static int sr_key_ecn(struct sr_pmd_config *cfg, const char *val, char *why,
		      size_t whylen)
{
	if (strcmp(val, "off") == 0) {
		cfg->ecn = 0;
	} else if (strcmp(val, "ect0") == 0) {
		cfg->ecn = 2;
	} else if (strcmp(val, "ect1") == 0) {
		cfg->ecn = 1;
	} else {
		snprintf(why, whylen, "ecn '%s' is not off, ect0 or ect1", val);
		return -EINVAL;
	}
	return 0;
}

static int sr_key_cc(struct sr_pmd_config *cfg, const char *val, char *why,
		     size_t whylen)
{
	if (strcmp(val, "off") == 0) {
		cfg->cc = false;
	} else if (strcmp(val, "dcqcn") == 0) {
		cfg->cc = true;
	} else {
		snprintf(why, whylen, "cc '%s' is not off or dcqcn", val);
		return -EINVAL;
	}
	return 0;
}

/* line_rate = Mbit/s of the link, 0 = the port's speed. */
static int sr_key_line_rate(struct sr_pmd_config *cfg, const char *val,
			    char *why, size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, 0, 10000000, &v, why, whylen))
		return -EINVAL;
	cfg->line_rate = (uint32_t)v;
	return 0;
}

static int sr_key_window(struct sr_pmd_config *cfg, const char *val,
			 char *why, size_t whylen)
{
	unsigned long v;

	if (sr_parse_uint(val, SR_WINDOW_MIN, SR_WINDOW_MAX, &v, why, whylen))
		return -EINVAL;
	cfg->window = (uint32_t)v;
	return 0;
}

/* tx_ref_min = payload bytes from which a frame points at the MR, or off */
static int sr_key_tx_ref_min(struct sr_pmd_config *cfg, const char *val,
			     char *why, size_t whylen)
{
	unsigned long v;

	if (strcmp(val, "off") == 0) {
		cfg->tx_ref_min = 0;
		return 0;
	}
	if (sr_parse_uint(val, 1, 65536, &v, why, whylen))
		return -EINVAL;
	cfg->tx_ref_min = (uint32_t)v;
	return 0;
}

/* dcqcn = <ConnectX parameter name>=<value>; repeatable. */
static int sr_key_dcqcn(struct sr_pmd_config *cfg, const char *val,
			char *why, size_t whylen)
{
	struct sr_dcqcn_params p = cfg->dcqcn;
	const char *eq = strchr(val, '=');
	char name[64];
	unsigned long v;
	int rc;

	if (eq == NULL || eq == val || (size_t)(eq - val) >= sizeof(name)) {
		snprintf(why, whylen, "dcqcn '%s' is not name=value", val);
		return -EINVAL;
	}
	memcpy(name, val, (size_t)(eq - val));
	name[eq - val] = '\0';
	if (sr_parse_uint(eq + 1, 0, UINT32_MAX, &v, why, whylen))
		return -EINVAL;
	rc = sr_dcqcn_param_set(&p, name, v);
	if (rc == -ENOENT) {
		snprintf(why, whylen, "no DCQCN parameter '%s'", name);
		return -EINVAL;
	}
	if (rc != 0 || sr_dcqcn_params_check(&p) != 0) {
		snprintf(why, whylen, "dcqcn %s=%lu out of range", name, v);
		return -EINVAL;
	}
	cfg->dcqcn = p;
	return 0;
}

static const struct {
	const char *name;
	sr_config_key_fn fn;
} sr_config_keys[] = {
#define SR_CONFIG_KEY(k, fn_) { .name = #k, .fn = fn_ },
	SR_CONFIG_KEYS(SR_CONFIG_KEY)
#undef SR_CONFIG_KEY
};

bool sr_pmd_config_hugepages_free(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
			"r");
	unsigned long n = 0;

	if (f == NULL)
		return false;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	/* The default pool of 9 KiB buffers wants ~128 MiB. */
	return n >= 128;
}

void sr_pmd_config_init(struct sr_pmd_config *cfg)
{
	*cfg = (struct sr_pmd_config){
		.node = -1,
		.daemon_fd = -1,
		.bell_fd = -1,
		.bell_efd = -1,
		.wake_efd = -1,
		.mode = SR_PMD_MODE_INLINE,
		.engine_lcore = 1,
		.engines = 1,
		.mbufs = 8191,
		.rx_desc = 1024,
		.tx_desc = 1024,
		.burst = 32,
		.ipv4_prefix = 32,
		.no_huge = !sr_pmd_config_hugepages_free(),
		.ecn = 2,   /* ECT(0) */
		.cc = true,
		.dcqcn = SR_DCQCN_PARAMS_DEFAULT,
		.tx_ref_min = SR_CONFIG_TX_REF_MIN,
	};
	strcpy(cfg->run_dir, SR_DEFAULT_RUN_DIR);
	strcpy(cfg->stats_dir, SR_DEFAULT_STATS_DIR);
}

static char *sr_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int sr_config_line(struct sr_pmd_config *cfg, char *line, char *why,
			  size_t whylen)
{
	char *hash = strchr(line, '#'), *eq, *key, *val;

	if (hash)
		*hash = '\0';
	line = sr_trim(line);
	if (*line == '\0')
		return 0;
	eq = strchr(line, '=');
	if (eq == NULL) {
		snprintf(why, whylen, "expected 'key = value', got '%s'", line);
		return -EINVAL;
	}
	*eq = '\0';
	key = sr_trim(line);
	val = sr_trim(eq + 1);
	for (size_t i = 0; i < sizeof(sr_config_keys) / sizeof(sr_config_keys[0]);
	     i++)
		if (strcmp(key, sr_config_keys[i].name) == 0)
			return sr_config_keys[i].fn(cfg, val, why, whylen);
	snprintf(why, whylen, "unknown key '%s'", key);
	return -EINVAL;
}

int sr_pmd_config_parse(struct sr_pmd_config *cfg, const char *text,
			const char *origin, char *err, size_t errlen)
{
	char line[SR_CONFIG_EAL_MAX + 64], why[SR_CONFIG_ERR_MAX];
	unsigned int lineno = 0;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		lineno++;
		if (n >= sizeof(line)) {
			snprintf(err, errlen, "%s:%u: line too long", origin,
				 lineno);
			return -EINVAL;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		why[0] = '\0';
		if (sr_config_line(cfg, line, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%u: %s", origin, lineno, why);
			return -EINVAL;
		}
		p += n + (nl != NULL);
	}
	return 0;
}

int sr_pmd_config_parse_file(struct sr_pmd_config *cfg, const char *path,
			     char *err, size_t errlen)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f, *mem;
	int rc, c;

	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	mem = open_memstream(&text, &size);
	if (mem == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out_close;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(mem);
	if (ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		goto out_free;
	}
	rc = sr_pmd_config_parse(cfg, text, path, err, errlen);
out_free:
	free(text);
out_close:
	fclose(f);
	return rc;
}

int sr_pmd_config_default_link(struct sr_pmd_config *cfg, int node,
			       char *err, size_t errlen)
{
	static const uint8_t v6_prefix[14] = { 0xfd, 0x00, 0x53, 0x52 };
	int n;

	if (node != 0 && node != 1) {
		snprintf(err, errlen, "default link node must be 0 or 1, not %d",
			 node);
		return -EINVAL;
	}
	cfg->node = node;
	n = snprintf(cfg->port, sizeof(cfg->port),
		     "net_memif0,role=%s,socket=%s/memif.sock,id=0,rsize=%u",
		     node == 0 ? "server" : "client", cfg->run_dir,
		     SR_PMD_MEMIF_LOG2_RING);
	if (n < 0 || (size_t)n >= sizeof(cfg->port)) {
		snprintf(err, errlen, "run_dir '%s' too long", cfg->run_dir);
		return -EINVAL;
	}
	if (!cfg->has_mac) {
		static const uint8_t mac[6] = { 0x02, 0x53, 0x52, 0, 0, 0 };

		memcpy(cfg->mac, mac, sizeof(mac));
		cfg->mac[5] = (uint8_t)(node + 1);
		cfg->has_mac = true;
	}
	if (!cfg->has_ipv4) {
		cfg->ipv4[0] = 10;
		cfg->ipv4[1] = 0;
		cfg->ipv4[2] = 0;
		cfg->ipv4[3] = (uint8_t)(node + 1);
		cfg->ipv4_prefix = 24;
		cfg->has_ipv4 = true;
	}
	if (cfg->n_ipv6 == 0) {
		memset(cfg->ipv6[0], 0, 16);
		memcpy(cfg->ipv6[0], v6_prefix, sizeof(v6_prefix));
		cfg->ipv6[0][15] = (uint8_t)(node + 1);
		cfg->ipv6_prefix[0] = 64;
		cfg->n_ipv6 = 1;
	}
	if (cfg->mtu == 0)
		cfg->mtu = 9000;
	return 0;
}

/* Append ",key=val" to the port string; -EINVAL when it would not fit. */
static int sr_port_append(struct sr_pmd_config *cfg, const char *key,
			  uint32_t val, char *err, size_t errlen)
{
	size_t len = strlen(cfg->port);
	int n = snprintf(cfg->port + len, sizeof(cfg->port) - len, ",%s=%u",
			 key, val);

	if (n < 0 || (size_t)n >= sizeof(cfg->port) - len) {
		cfg->port[len] = '\0';
		snprintf(err, errlen, "port '%s' too long", cfg->port);
		return -EINVAL;
	}
	return 0;
}

int sr_pmd_config_port_buffers(struct sr_pmd_config *cfg, char *err,
			       size_t errlen)
{
	uint32_t frame = cfg->mtu + SR_PMD_L2_OVERHEAD, sz;
	int rc;

	if (cfg->mtu == 0)
		return 0;
	if (strncmp(cfg->port, "net_memif", 9) == 0) {
		if (strstr(cfg->port, "bsize=") != NULL ||
		    frame <= SR_PMD_MEMIF_BSIZE_DEFAULT)
			return 0;
		return sr_port_append(cfg, "bsize", (frame + 1023) & ~1023u,
				      err, errlen);
	}
	if (strncmp(cfg->port, "net_af_packet", 13) == 0) {
		if (strstr(cfg->port, "framesz=") != NULL ||
		    frame + SR_PMD_AF_PACKET_HDR <= SR_PMD_AF_PACKET_FRAMESZ)
			return 0;
		for (sz = SR_PMD_AF_PACKET_FRAMESZ;
		     sz < frame + SR_PMD_AF_PACKET_HDR; sz *= 2)
			;
		rc = sr_port_append(cfg, "framesz", sz, err, errlen);
		if (rc == 0 && strstr(cfg->port, "blocksz=") == NULL)
			rc = sr_port_append(cfg, "blocksz", sz, err, errlen);
		return rc;
	}
	return 0;
}

uint32_t sr_pmd_config_devarg(const char *port, const char *key, uint32_t def)
{
	const char *p = port;
	size_t klen = strlen(key);

	while ((p = strchr(p, ',')) != NULL) {
		p++;
		if (strncmp(p, key, klen) == 0 && p[klen] == '=')
			return (uint32_t)strtoul(p + klen + 1, NULL, 0);
	}
	return def;
}

/* The MTU the kernel gives interface name, or 0 (no such interface). */
static uint32_t sr_ifname_mtu(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd, ok;

	if (strlen(name) >= sizeof(ifr.ifr_name))
		return 0;
	strcpy(ifr.ifr_name, name);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ok = ioctl(fd, SIOCGIFMTU, &ifr) == 0;
	close(fd);
	return ok && ifr.ifr_mtu > 0 ? (uint32_t)ifr.ifr_mtu : 0;
}

uint32_t sr_pmd_config_mtu_limit(const struct sr_pmd_config *cfg,
				 const char **why)
{
	const char *iface = strstr(cfg->port, ",iface=");
	uint32_t lim = 0, kmtu = 0;

	if (strncmp(cfg->port, "net_af_packet", 13) == 0) {
		uint32_t slot = sr_pmd_config_devarg(cfg->port, "framesz",
						     SR_PMD_AF_PACKET_FRAMESZ);

		if (slot > SR_PMD_AF_PACKET_HDR + SR_PMD_L2_OVERHEAD) {
			lim = slot - SR_PMD_AF_PACKET_HDR - SR_PMD_L2_OVERHEAD;
			*why = "af_packet's framesz; give the port a larger one";
		}
	}
	if (cfg->iface[0] != '\0') {
		kmtu = sr_ifname_mtu(cfg->iface);
	} else if (iface != NULL) {
		char name[IF_NAMESIZE] = "";
		size_t n = strcspn(iface + 7, ",");

		if (n < sizeof(name)) {
			memcpy(name, iface + 7, n);
			kmtu = sr_ifname_mtu(name);
		}
	}
	if (kmtu != 0 && (lim == 0 || kmtu < lim)) {
		lim = kmtu;
		*why = "the interface's MTU; raise it for more";
	}
	return lim;
}

int sr_pmd_config_claim_node(const char *run_dir, int *lock_fd)
{
	char path[SR_CONFIG_STR_MAX + 16];
	int fd;

	*lock_fd = -1;
	if (mkdir(run_dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/memif.lock", run_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		*lock_fd = fd;
		return 0;
	}
	close(fd);
	return 1;
}

int sr_pmd_config_load(struct sr_pmd_config *cfg, int *lock_fd, char *err,
		       size_t errlen)
{
	return sr_pmd_config_load_path(cfg, getenv("SROCE_CONFIG"), lock_fd,
				       err, errlen);
}

int sr_pmd_config_load_path(struct sr_pmd_config *cfg, const char *path,
			    int *lock_fd, char *err, size_t errlen)
{
	const char *node_env = getenv("SROCE_NODE");
	const char *run_env = getenv("SROCE_RUN_DIR");
	int rc, node;

	*lock_fd = -1;
	sr_pmd_config_init(cfg);
	if (run_env && *run_env &&
	    sr_copy_str(cfg->run_dir, sizeof(cfg->run_dir), run_env, err,
			errlen))
		return -EINVAL;
	if (path && *path) {
		rc = sr_pmd_config_parse_file(cfg, path, err, errlen);
		if (rc)
			return rc;
	} else {
		cfg->default_link = true;
	}
	if (cfg->default_link) {
		node = cfg->node;
		if (node_env && *node_env) {
			if (strcmp(node_env, "0") && strcmp(node_env, "1")) {
				snprintf(err, errlen,
					 "SROCE_NODE='%s': want 0 or 1",
					 node_env);
				return -EINVAL;
			}
			node = node_env[0] - '0';
		}
		if (node < 0) {
			node = sr_pmd_config_claim_node(cfg->run_dir, lock_fd);
			if (node < 0) {
				snprintf(err, errlen, "%s: %s", cfg->run_dir,
					 strerror(-node));
				return node;
			}
		} else if (mkdir(cfg->run_dir, 0755) && errno != EEXIST) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", cfg->run_dir,
				 strerror(errno));
			return rc;
		}
		rc = sr_pmd_config_default_link(cfg, node, err, errlen);
		if (rc)
			return rc;
	}
	rc = sr_pmd_config_port_buffers(cfg, err, errlen);
	if (rc)
		return rc;
	if (cfg->port[0] == '\0') {
		snprintf(err, errlen, "%s: no port (want port = default, a vdev or a PCI address)",
			 path ? path : "config");
		return -EINVAL;
	}
	if (cfg->iface[0] != '\0') {
		/* The interface's own MAC and addresses (hostnic.c). */
		if (cfg->has_mac || cfg->has_ipv4 || cfg->n_ipv6) {
			snprintf(err, errlen,
				 "%s: port iface:%s takes its MAC and addresses from the interface; remove mac, ipv4 and ipv6",
				 path ? path : "config", cfg->iface);
			return -EINVAL;
		}
		return 0;
	}
	if (!cfg->has_ipv4) {
		snprintf(err, errlen, "%s: no ipv4 address", path ? path : "config");
		return -EINVAL;
	}
	return 0;
}

uint32_t sr_pmd_path_mtu(uint32_t ip_mtu)
{
	for (uint32_t m = 4096; m >= 256; m /= 2)
		if (m + SR_PMD_ROCE_OVERHEAD <= ip_mtu)
			return m;
	return 0;
}
