/*
 * attrs.c - the attributes msgtrace's own export (`export --otf2`) puts on
 * message events: the fabric fields OTF2's MPI events have no room for
 * (kind, fabric communicator id and sender rank, tag flags, a receive's
 * posted length, a receive request's communicator, posted tag and
 * source).
 * With them an exported archive reads back as the messages exported.
 * Other producers' attributes of other names are ignored.
 */
#include <string.h>

#include "otf2in_int.h"

static const char *const attr_name[OI_A_COUNT] = {
	[OI_A_KIND] = "msgtrace::kind", [OI_A_CID] = "msgtrace::cid",
	[OI_A_COMM_SRC] = "msgtrace::comm_src", [OI_A_FLAGS] = "msgtrace::flags",
	[OI_A_TAG] = "msgtrace::tag", [OI_A_PEER] = "msgtrace::peer",
	[OI_A_COMM] = "msgtrace::comm",
	[OI_A_RECV_BUF] = "recv_buf",
};

OTF2_CallbackCode mt_otf2in_def_attribute(void *arg, OTF2_AttributeRef self,
					  OTF2_StringRef name, OTF2_StringRef descr,
					  OTF2_Type type)
{
	struct mt_otf2in *in = arg;
	const char *s = mt_otf2in_string(in, name);

	(void)descr, (void)type;
	for (unsigned a = 0; a < OI_A_COUNT; a++)
		if (!strcmp(s, attr_name[a]))
			in->attr[a] = self;
	return OTF2_CALLBACK_SUCCESS;
}

/* 1 when al holds attribute a (defined), its value in *v. */
static int get(const struct mt_otf2in *in, const OTF2_AttributeList *al,
	       unsigned a, OTF2_AttributeValue *v)
{
	OTF2_Type t;

	return al && in->attr[a] != OI_NONE &&
	       OTF2_AttributeList_GetAttributeByID(al, in->attr[a], &t, v) ==
	       OTF2_SUCCESS;
}

int mt_otf2in_fab(const struct mt_otf2in *in, const OTF2_AttributeList *al,
		  struct oi_fab *x)
{
	OTF2_AttributeValue v;
	const char *kind;

	memset(x, 0, sizeof(*x));
	x->peer = -1;
	if (get(in, al, OI_A_RECV_BUF, &v)) {
		x->has_buf = 1;
		x->recv_buf = v.uint64;
	}
	if (!get(in, al, OI_A_KIND, &v))
		return 0;
	kind = mt_otf2in_string(in, v.stringRef);
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
		if (!strcmp(kind, mt_match_kind_str(k)))
			x->f.kind = (uint8_t)k;
	x->f.cid = get(in, al, OI_A_CID, &v) ? v.int64 : -1;
	x->f.comm_src = get(in, al, OI_A_COMM_SRC, &v) ? v.int32 : -1;
	if (get(in, al, OI_A_FLAGS, &v)) {
		x->f.internal = !!(v.uint8 & OI_F_INTERNAL);
		x->f.has_tag = !!(v.uint8 & OI_F_HAS_TAG);
		x->f.any_src = !!(v.uint8 & OI_F_ANY_SRC);
	}
	if (get(in, al, OI_A_TAG, &v))
		x->f.tag = v.int32;
	if (get(in, al, OI_A_PEER, &v))
		x->peer = v.int32;
	if (get(in, al, OI_A_COMM, &v)) {
		x->comm = v.commRef;
		x->has_comm = 1;
	}
	x->has = 1;
	return 1;
}
