# Memory keys: R_Key, bounds and access rights at the DUT's responder.
# A remote access violation is NAKed "Remote Access Error" and moves the
# responder's QP to the error state (IBA 9.7.5.2.4 / 10.6.7.2 / 11.6.2).

scenario mkey.write_bad_rkey
area mkeys
ref IBA 10.6.3.2 / 9.7.4 (R_Key check of an RDMA WRITE)
title a WRITE_ONLY with a wrong R_Key (key byte + 1) is NAKed Remote Access Error
conforming NAK Remote Access Error at PSN +0, the QP in ERR
send WRITE_ONLY psn=0 va=0 payload=64 pattern=1 rkey=bad ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
qpstate ERR
end

scenario mkey.read_bad_rkey
area mkeys
ref IBA 10.6.3.2 / 9.7.4 (R_Key check of an RDMA READ)
title a READ with a wrong R_Key is NAKed Remote Access Error
conforming NAK Remote Access Error at PSN +0 (no READ response)
send READ_REQUEST psn=0 va=0 len=64 rkey=bad ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
qpstate ERR
end

scenario mkey.write_beyond_end
area mkeys
ref IBA 10.6.3.2 (the access must lie inside the region)
title a WRITE_ONLY crossing the end of the 4096-byte region is NAKed Remote Access Error
conforming NAK Remote Access Error, nothing written
send WRITE_ONLY psn=0 va=4090 payload=64 pattern=2 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario mkey.read_beyond_end
area mkeys
ref IBA 10.6.3.2 (the access must lie inside the region)
title a READ crossing the end of the region is NAKed Remote Access Error
conforming NAK Remote Access Error, no READ response
send READ_REQUEST psn=0 va=4000 len=200 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario mkey.write_multi_beyond_end
area mkeys
ref IBA 10.6.3.2 (a multi-packet WRITE whose DMA length leaves the region)
title WRITE_FIRST with DMA length 8192 on a 4096-byte region is NAKed Remote Access Error
conforming NAK Remote Access Error at PSN +0
send WRITE_FIRST psn=0 va=0 len=8192 payload=1024 pattern=3 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario mkey.write_not_allowed
area mkeys
ref IBA 10.6.3.2 / 10.6.7 (access rights: the region does not allow remote write)
qp rc mr=4096 access=r
title a WRITE to a region registered for remote read only is NAKed Remote Access Error
conforming NAK Remote Access Error, the QP in ERR
send WRITE_ONLY psn=0 va=0 payload=16 pattern=4 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
qpstate ERR
end

scenario mkey.read_not_allowed
area mkeys
ref IBA 10.6.3.2 / 10.6.7 (access rights: the region does not allow remote read)
qp rc mr=4096 access=w
title a READ of a region registered for remote write only is NAKed Remote Access Error
conforming NAK Remote Access Error
send READ_REQUEST psn=0 va=0 len=16 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario mkey.atomic_not_allowed
area mkeys
ref IBA 10.6.3.2 / 10.6.7 (access rights: no remote atomic)
qp rc mr=4096 access=rw
title a FETCH_ADD on a region without remote atomic access is NAKed Remote Access Error
conforming NAK Remote Access Error
send FETCH_ADD psn=0 va=0 add=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario mkey.error_flushes_receives
area mkeys
ref IBA 10.3.1 / 11.6.2 (a QP in ERR completes its outstanding WRs with flush errors)
title after a Remote Access Error the DUT's posted receive completes flushed
conforming NAK Remote Access Error, then a WR_FLUSH_ERR completion for the receive
recv off=0 len=64
send WRITE_ONLY psn=0 va=0 payload=16 pattern=5 rkey=bad ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
cqe status=WR_FLUSH_ERR
end

scenario mkey.no_answer_after_error
area mkeys
ref IBA 10.3.1 (a QP in ERR does not respond to further requests)
title after the QP went to ERR a correct request gets no answer
conforming no frame for the next request
send WRITE_ONLY psn=0 va=0 payload=16 pattern=6 rkey=bad ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
send WRITE_ONLY psn=0 va=0 payload=16 pattern=6 ackreq
expect-none
end

scenario mkey.mw_write_inside
area mkeys
ref IBA 10.6.7 memory windows (type 1): remote access through the window's R_Key
qp rc mr=4096 access=rwam
title a WRITE through a memory window bound over the MR's first 1024 bytes lands
conforming an ACK; the bytes at the window's start
bind off=0 len=1024
send WRITE_ONLY psn=0 va=0 payload=64 pattern=7 rkey=mw ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
mem off=0 len=64 pattern=7
end

scenario mkey.mw_write_outside
area mkeys
ref IBA 10.6.7 (a window's bounds, not its region's, limit access through its R_Key)
qp rc mr=4096 access=rwam
title a WRITE through the window's R_Key beyond its 1024 bytes (inside the MR) is NAKed Remote Access Error
conforming NAK Remote Access Error at PSN +0
bind off=0 len=1024
send WRITE_ONLY psn=0 va=1024 payload=64 pattern=8 rkey=mw ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario mkey.mw_read
area mkeys
ref IBA 10.6.7 (READ through a memory window)
qp rc mr=4096 access=rwam
title a READ through the window's R_Key returns the memory's bytes
conforming READ_RESPONSE_ONLY with the 128 bytes at the window's offset 256
fill off=256 len=128 pattern=9
bind off=0 len=1024
send READ_REQUEST psn=0 va=256 len=128 rkey=mw ackreq
expect READ_RESPONSE_ONLY psn=0 aeth=ack payload=128 pattern=9
end
