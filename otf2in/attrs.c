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

/* Which of msgtrace's attributes ref is, OI_A_COUNT: none. */
static unsigned which(const struct mt_otf2in *in, OTF2_AttributeRef ref)
{
	unsigned a = 0;

	while (a < OI_A_COUNT && in->attr[a] != ref)
		a++;
	return a;
}

int mt_otf2in_fab(const struct mt_otf2in *in, const OTF2_AttributeList *al,
		  struct oi_fab *x)
{
	uint32_t n = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0;

	memset(x, 0, sizeof(*x));
	x->peer = -1;
	x->f.cid = -1;
	x->f.comm_src = -1;
	/* One pass over the list: the events carry several attributes. */
	for (uint32_t i = 0; i < n; i++) {
		OTF2_AttributeRef ref;
		OTF2_AttributeValue v;
		OTF2_Type t;

		if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &t, &v) !=
		    OTF2_SUCCESS)
			continue;
		switch (which(in, ref)) {
		case OI_A_KIND:
			x->has = 1;
			for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
				if (in->kind_str[k] == v.stringRef)
					x->f.kind = (uint8_t)k;
			break;
		case OI_A_CID:
			x->f.cid = v.int64;
			break;
		case OI_A_COMM_SRC:
			x->f.comm_src = v.int32;
			break;
		case OI_A_FLAGS:
			x->f.internal = !!(v.uint8 & OI_F_INTERNAL);
			x->f.has_tag = !!(v.uint8 & OI_F_HAS_TAG);
			x->f.any_src = !!(v.uint8 & OI_F_ANY_SRC);
			break;
		case OI_A_TAG:
			x->f.tag = v.int32;
			break;
		case OI_A_PEER:
			x->peer = v.int32;
			break;
		case OI_A_COMM:
			x->comm = v.commRef;
			x->has_comm = 1;
			break;
		case OI_A_RECV_BUF:
			x->recv_buf = v.uint64;
			x->has_buf = 1;
			break;
		default:
			break;
		}
	}
	return x->has;
}

/* The string s defined as ref: a message kind's name? */
void mt_otf2in_def_kind(struct mt_otf2in *in, uint32_t ref, const char *s)
{
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
		if (!strcmp(s, mt_match_kind_str(k)))
			in->kind_str[k] = ref;
}
