/*
 * names.c - libfabric constants as names for printing; it also proves that
 * the trace format's mirrored fid class numbers equal libfabric's.
 */
#include <inttypes.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "mt_trace.h"
#include "escape.h"
#include "mt_sink.h"

#define SAME_CLASS(name) \
	_Static_assert((int)MT_FID_CLASS_##name == (int)FI_CLASS_##name, \
		       "mt_trace.h MT_FID_CLASS_" #name " differs from libfabric");
SAME_CLASS(FABRIC) SAME_CLASS(DOMAIN) SAME_CLASS(EP) SAME_CLASS(SEP)
SAME_CLASS(RX_CTX) SAME_CLASS(SRX_CTX) SAME_CLASS(TX_CTX) SAME_CLASS(AV)
SAME_CLASS(EQ) SAME_CLASS(CQ) SAME_CLASS(CNTR)

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define BIT(x) { x, #x }

/*
 * Bits whose meaning libfabric 2 changed: it removed FI_PRIORITY and
 * FI_XPU_TRIGGER, moved FI_HMEM_HOST_ALLOC and FI_HMEM_DEVICE_ONLY to the
 * memory-registration flags and FI_VARIABLE_MSG to a 0 placeholder, and
 * gave bits 45, 46 and 48 new capabilities. Names follow the headers
 * msgtrace was built with.
 */
#if FI_MAJOR_VERSION >= 2
#define VERSION_BITS \
	BIT(FI_TAGGED_DIRECTED_RECV), BIT(FI_TAGGED_MULTI_RECV), \
	BIT(FI_EXACT_DIRECTED_RECV), BIT(FI_AUTH_KEY)
#else
#define VERSION_BITS \
	BIT(FI_PRIORITY), BIT(FI_XPU_TRIGGER), BIT(FI_HMEM_HOST_ALLOC), \
	BIT(FI_HMEM_DEVICE_ONLY), BIT(FI_VARIABLE_MSG)
#endif

/* Bits common to caps and op flags; FI_SEND is printed for FI_TRANSMIT. */
#define COMMON_BITS \
	BIT(FI_MSG), BIT(FI_RMA), BIT(FI_TAGGED), BIT(FI_ATOMIC), \
	BIT(FI_MULTICAST), BIT(FI_COLLECTIVE), BIT(FI_READ), BIT(FI_WRITE), \
	BIT(FI_RECV), BIT(FI_SEND), BIT(FI_REMOTE_READ), BIT(FI_REMOTE_WRITE), \
	BIT(FI_MULTI_RECV), BIT(FI_REMOTE_CQ_DATA), BIT(FI_MORE), BIT(FI_PEEK), \
	BIT(FI_TRIGGER), BIT(FI_FENCE), BIT(FI_COMPLETION), \
	BIT(FI_INJECT), BIT(FI_INJECT_COMPLETE), BIT(FI_TRANSMIT_COMPLETE), \
	BIT(FI_DELIVERY_COMPLETE), BIT(FI_AFFINITY), BIT(FI_COMMIT_COMPLETE), \
	BIT(FI_MATCH_COMPLETE), BIT(FI_PEER_TRANSFER), BIT(FI_AV_USER_ID), \
	BIT(FI_PEER), BIT(FI_HMEM), \
	BIT(FI_RMA_PMEM), BIT(FI_SOURCE_ERR), BIT(FI_LOCAL_COMM), \
	BIT(FI_REMOTE_COMM), BIT(FI_SHARED_AV), BIT(FI_PROV_ATTR_ONLY), \
	BIT(FI_NUMERICHOST), BIT(FI_RMA_EVENT), BIT(FI_SOURCE), VERSION_BITS

static const struct bit_name op_bits[] = {
	COMMON_BITS, BIT(FI_DISCARD), BIT(FI_CLAIM), { 0, NULL }
};

static const struct bit_name cap_bits[] = {
	COMMON_BITS, BIT(FI_NAMED_RX_CTX), BIT(FI_DIRECTED_RECV), { 0, NULL }
};

static const struct bit_name bind_bits[] = {
	COMMON_BITS, BIT(FI_SELECTIVE_COMPLETION), { 0, NULL }
};

char *mt_sink_name_flags(char *buf, size_t len, uint64_t flags,
		    enum mt_name_flag_set set)
{
	const struct bit_name *t = set == MT_NAME_CAPS ? cap_bits :
				   set == MT_NAME_BIND_FLAGS ? bind_bits : op_bits;
	size_t used = 0;

	buf[0] = '\0';
	for (; t->name && used < len; t++) {
		if (!(flags & t->bit))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "|" : "", t->name);
		flags &= ~t->bit;
	}
	if (used < len && (flags || !used))
		snprintf(buf + used, len - used, "%s0x%llx", used ? "|" : "",
			 (unsigned long long)flags);
	return buf;
}

const char *mt_sink_name_fid_class(uint32_t fclass)
{
	static const char *const names[] = {
		[FI_CLASS_FABRIC] = "fabric", [FI_CLASS_DOMAIN] = "domain",
		[FI_CLASS_EP] = "ep", [FI_CLASS_SEP] = "sep",
		[FI_CLASS_RX_CTX] = "rx_ctx", [FI_CLASS_SRX_CTX] = "srx_ctx",
		[FI_CLASS_TX_CTX] = "tx_ctx", [FI_CLASS_STX_CTX] = "stx_ctx",
		[FI_CLASS_PEP] = "pep", [FI_CLASS_INTERFACE] = "interface",
		[FI_CLASS_AV] = "av", [FI_CLASS_MR] = "mr", [FI_CLASS_EQ] = "eq",
		[FI_CLASS_CQ] = "cq", [FI_CLASS_CNTR] = "cntr",
		[FI_CLASS_WAIT] = "wait", [FI_CLASS_POLL] = "poll",
		[FI_CLASS_CONNREQ] = "connreq", [FI_CLASS_MC] = "mc",
		[FI_CLASS_NIC] = "nic", [FI_CLASS_AV_SET] = "av_set",
	};

	return fclass < sizeof(names) / sizeof(names[0]) ? names[fclass] : NULL;
}

const char *mt_sink_name_errno(int err)
{
	static const struct { int err; const char *name; } names[] = {
#define ERR(x) { x, #x }
		ERR(FI_EPERM), ERR(FI_ENOENT), ERR(FI_EINTR), ERR(FI_EIO),
		ERR(FI_E2BIG), ERR(FI_EBADF), ERR(FI_EAGAIN), ERR(FI_ENOMEM),
		ERR(FI_EACCES), ERR(FI_EFAULT), ERR(FI_EBUSY), ERR(FI_ENODEV),
		ERR(FI_EINVAL), ERR(FI_EMFILE), ERR(FI_ENOSPC), ERR(FI_ENOSYS),
		ERR(FI_ENOMSG), ERR(FI_ENODATA), ERR(FI_EOVERFLOW),
		ERR(FI_EMSGSIZE), ERR(FI_ENOPROTOOPT), ERR(FI_EOPNOTSUPP),
		ERR(FI_EADDRINUSE), ERR(FI_EADDRNOTAVAIL), ERR(FI_ENETDOWN),
		ERR(FI_ENETUNREACH), ERR(FI_ECONNABORTED), ERR(FI_ECONNRESET),
		ERR(FI_ENOBUFS), ERR(FI_EISCONN), ERR(FI_ENOTCONN),
		ERR(FI_ESHUTDOWN), ERR(FI_ETIMEDOUT), ERR(FI_ECONNREFUSED),
		ERR(FI_EHOSTDOWN), ERR(FI_EHOSTUNREACH), ERR(FI_EALREADY),
		ERR(FI_EINPROGRESS), ERR(FI_EREMOTEIO), ERR(FI_ECANCELED),
		ERR(FI_EKEYREJECTED), ERR(FI_EOTHER), ERR(FI_ETOOSMALL),
		ERR(FI_EOPBADSTATE), ERR(FI_EAVAIL), ERR(FI_EBADFLAGS),
		ERR(FI_ENOEQ), ERR(FI_EDOMAIN), ERR(FI_ENOCQ), ERR(FI_ECRC),
		ERR(FI_ETRUNC), ERR(FI_ENOKEY), ERR(FI_ENOAV), ERR(FI_EOVERRUN),
		ERR(FI_ENORX),
#undef ERR
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return NULL;
}

char *mt_sink_name_addr(char *buf, size_t len, const uint8_t *addr, size_t n)
{
	char ip[INET6_ADDRSTRLEN];
	size_t used = 0;
	sa_family_t fam = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 3 <= len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%02x", addr[i]);
	if (n >= sizeof(fam))
		memcpy(&fam, addr, sizeof(fam));
	if (fam == AF_INET && n >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in sin;

		memcpy(&sin, addr, sizeof(sin));
		inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip));
		snprintf(buf + used, len - used, " (%s:%u)", ip, ntohs(sin.sin_port));
	} else if (fam == AF_INET6 && n >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, addr, sizeof(sin6));
		inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof(ip));
		snprintf(buf + used, len - used, " ([%s]:%u)", ip,
			 ntohs(sin6.sin6_port));
	}
	return buf;
}

const char *mt_sink_name_lower(char *buf, size_t len, const char *name)
{
	size_t i = 0;

	if (!name)
		return "?";
	for (; name[i] && i + 1 < len; i++)
		buf[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ?
				name[i] + 'a' - 'A' : name[i]);
	buf[i] = '\0';
	return buf;
}

char *mt_sink_name_text(char *buf, size_t len, const char *s, size_t max)
{
	size_t o = 0;

	if (!len)
		return buf;
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		int plain = c >= 0x20 && c < 0x7f && c != '\\';

		if (o + (plain ? 1 : 4) >= len)
			break;
		if (plain)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

struct mt_sym *mt_sink_sym(const struct mt_trace *t)
{
	struct mt_sym *s = NULL;
	struct mt_err err;

	if (t && t->nsites && mt_sym_new(t, &s, &err) != MT_OK)
		return NULL;
	return s;
}

/* ,"key":{...} for a call site, with the trace's call sites only (sym):
 * null when this one has none. */
void mt_sink_site_json(FILE *o, struct mt_sym *sym, const char *key,
		       uint32_t site)
{
	const struct mt_sym_loc *l = mt_sym_site(sym, site);

	if (!sym)
		return;
	fprintf(o, ",\"%s\":", key);
	if (!l) {
		fputs("null", o);
		return;
	}
	fputs("{\"text\":", o);
	mt_sink_esc_json(o, l->text);
	fputs(",\"file\":", o);
	mt_sink_esc_json(o, l->file);
	fprintf(o, ",\"line\":%" PRIu32 ",\"function\":", l->line);
	mt_sink_esc_json(o, l->function);
	fputs(",\"object\":", o);
	mt_sink_esc_json(o, l->object);
	fprintf(o, ",\"offset\":\"0x%" PRIx64 "\",\"mpi\":", l->offset);
	mt_sink_esc_json(o, l->entry);
	fputc('}', o);
}

void mt_sink_site_html(FILE *f, struct mt_sym *sym, const char *what,
		       uint32_t site)
{
	const struct mt_sym_loc *l = mt_sym_site(sym, site);

	if (!l)
		return;
	fprintf(f, ", %s <code class=\"site\">", what);
	mt_sink_esc_html(f, l->text);
	fputs("</code>", f);
}
