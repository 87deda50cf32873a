/*
 * feed.h - turns trace records into the matcher's operations (private to
 * tools/): endpoint numbering, fi_addr resolution through the reader, tag
 * decoding with each endpoint's layout, completion semantics from the
 * endpoint's op flags and CQ binds.
 */
#ifndef MT_FEED_H
#define MT_FEED_H

#include "mt_decode.h"
#include "mt_match.h"
#include "mt_trace.h"

#define FEED_ADDR_CACHE 256	/* fi_addr values cached per endpoint */

struct feed_proc_cache {
	uint64_t ep_id, cq_id;		/* last endpoint and CQ looked up */
	int32_t ep, cq_ep;		/* their endpoint indices (-2: none yet) */
};

struct feed {
	const struct mt_trace *t;
	struct mt_match *m;
	struct mt_tag_layout *lay;	/* per endpoint (index in t->eps) */
	enum mt_tag_confidence *conf;
	struct mt_tag_detect_result *det; /* per endpoint: with the evidence */
	uint8_t *sel_tx, *sel_rx;	/* FI_SELECTIVE_COMPLETION per direction */
	int32_t *proc_ep;		/* first endpoint of each process, or -1 */
	uint64_t skipped;
	/* Look-up caches: the reader's searches cost more than matching. */
	struct feed_proc_cache *pc;	/* per process */
	int32_t (*addr)[FEED_ADDR_CACHE]; /* per endpoint: fi_addr -> ep + 2 */
};

/* Whether a send carries CQ data (the source rank in some layouts). */
int feed_has_data(const struct mt_rec_op *r);
/* How a receive was posted, as MT_TAG_RECV_* bits. */
unsigned feed_recv_in(const struct mt_rec_op *r);
/*
 * The layout in force on each endpoint of t, with the evidence: det and lay
 * hold t->neps entries. Detected from the endpoint's attributes and first
 * tagged operations, undecided endpoints taking the job's layout
 * (mt_tag_detect_job), or forced (the evidence is still gathered). Every
 * command that decodes tags goes through here, so they all agree. Returns
 * MT_ERR_NOMEM, or a bad record's status (the first, in err: det and lay are
 * still filled from the records before it), or MT_OK.
 */
enum mt_status feed_detect(const struct mt_trace *t, enum mt_tag_layout_id force,
			   struct mt_tag_detect_result *det, struct mt_tag_layout *lay,
			   struct mt_err *err);
/* Detects each endpoint's layout (feed_detect) and its binds. */
enum mt_status feed_init(struct feed *fd, const struct mt_trace *t,
			 enum mt_tag_layout_id force, struct mt_err *err);
/* Registers the endpoints with m (made with feed_match_cfg). */
int feed_attach(struct feed *fd, struct mt_match *m);
void feed_fini(struct feed *fd);
/* Matcher configuration for the layout of endpoint 0. */
void feed_match_cfg(const struct feed *fd, struct mt_match_cfg *cfg);
/* One merged record in. Returns an mt_match_rc. */
int feed_event(struct feed *fd, const struct mt_trace_event *ev);

#endif /* MT_FEED_H */
