# decode_compare.awk LOGDIR/rank*.log DECODED: does `msgtrace decode --ops`
# give back what the MPI program logged (mpilog.h)? Every user send, in each
# rank's posting order, must decode to the sender's rank in its communicator
# and the tag; every delivered receive (completion, not a probe's answer,
# truncated ones included) to the logged source and tag, as a multiset per
# rank. The communicator ids are not known to the program: they are learnt
# from each rank's sends (one cid per communicator label; on one rank, one
# label per cid: disjoint communicators from one MPI_Comm_split may share a
# cid). Prints what differs.
function kv(line,    i, f, p) {
	delete v
	split(line, f, " ")
	for (i = 1; i in f; i++)
		if ((p = index(f[i], "=")) > 0)
			v[substr(f[i], 1, p - 1)] = substr(f[i], p + 1)
}
function bad(msg) { print "decode_compare: " msg; errors++ }

FILENAME ~ /\.log$/ && /^SEND / {
	kv($0)
	r = v["world_src"]; k = nlogsend[r]++
	logsend[r, k] = v["comm"] " " v["comm_src"] " " v["tag"]
	next
}
FILENAME ~ /\.log$/ && /^RECV / {
	kv($0)
	if (v["status"] == "cancelled")
		next
	logrecv[v["world_dst"] " " v["comm"] " " v["comm_src"] " " v["tag"]]++
	next
}
FILENAME !~ /\.log$/ && /^rank=/ && / user / && / proto=(normal|ssend-data) / {
	kv($0)
	if (v["op"] ~ /^t(send|inject)/) {
		r = v["rank"]; k = ndecsend[r]++
		decsend[r, k] = v["cid"] " " v["src"] " " v["tag"]
	} else if (v["op"] == "cqe-recv" && $0 !~ / probe/ &&
		   (!("err" in v) || v["err"] == "FI_ETRUNC")) {
		decrecv[v["rank"] " " v["cid"] " " v["src"] " " v["tag"]]++
	}
}
END {
	for (r in nlogsend)
		if (ndecsend[r] != nlogsend[r])
			bad("rank " r ": " nlogsend[r] " sends logged, " ndecsend[r] " decoded")
	for (key in logsend) {
		split(key, rk, SUBSEP)
		split(logsend[key], l, " ")
		if (!(key in decsend))
			continue
		split(decsend[key], d, " ")
		if (l[2] != d[2] || l[3] != d[3]) {
			bad("rank " rk[1] " send #" rk[2] ": logged src " l[2] " tag " l[3] \
			    " on " l[1] ", decoded src " d[2] " tag " d[3])
			continue
		}
		if ((l[1] in cid) && cid[l[1]] != d[1])
			bad("communicator " l[1] " decodes as cids " cid[l[1]] " and " d[1])
		if (((rk[1], d[1]) in label) && label[rk[1], d[1]] != l[1])
			bad("rank " rk[1] ": cid " d[1] " decodes for " label[rk[1], d[1]] \
			    " and " l[1])
		cid[l[1]] = d[1]; label[rk[1], d[1]] = l[1]; sends++
	}
	for (key in logrecv) {
		split(key, f, " ")
		if (!(f[2] in cid)) {
			bad("no send on communicator " f[2] " to learn its cid")
			continue
		}
		dkey = f[1] " " cid[f[2]] " " f[3] " " f[4]
		if (decrecv[dkey] != logrecv[key])
			bad("rank " f[1] ": " logrecv[key] " receives of src " f[3] " tag " f[4] \
			    " on " f[2] " logged, " (decrecv[dkey] + 0) " decoded")
		seen[dkey] = 1; recvs += logrecv[key]
	}
	for (dkey in decrecv)
		if (!(dkey in seen))
			bad("decoded receive(s) the program did not log: rank/cid/src/tag " dkey)
	if (!errors)
		printf "decode_compare: %d sends and %d receives as logged; cids:", sends, recvs
	if (!errors)
		for (c in cid)
			printf " %s=%s", c, cid[c]
	if (!errors)
		print ""
	exit errors > 0
}
