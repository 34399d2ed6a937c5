# Receiver Not Ready (IBA 9.7.5.2.8): the responder NAKs a request that
# needs a receive WQE when none is posted, with its min_rnr_timer; the
# requester waits and retries, at most rnr_retry times (7: forever).

scenario rnr.send_no_recv
area rnr
ref IBA 9.7.5.2.8 RNR NAK (timer field = the responder QP's min_rnr_timer)
qp rc min_rnr=14
title a SEND with no receive posted gets an RNR NAK with timer code 14; resent after a receive, it completes
conforming RNR NAK at PSN +0 with timer 14; the resent SEND ACKed and completed
send SEND_ONLY psn=0 payload=32 pattern=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=rnr:14
recv off=0 len=64
send SEND_ONLY psn=0 payload=32 pattern=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RECV len=32
end

scenario rnr.timer_code_31
area rnr
ref IBA 9.7.5.2.8, table 45 (RNR timer codes)
qp rc min_rnr=31
title the RNR NAK carries the largest timer code as set
conforming RNR NAK with timer 31
send SEND_ONLY psn=0 payload=8 pattern=2 ackreq
expect ACKNOWLEDGE psn=0 aeth=rnr:31
end

scenario rnr.timer_code_1
area rnr
ref IBA 9.7.5.2.8, table 45 (RNR timer codes)
qp rc min_rnr=1
title the RNR NAK carries timer code 1 as set
conforming RNR NAK with timer 1
send SEND_ONLY psn=0 payload=8 pattern=2 ackreq
expect ACKNOWLEDGE psn=0 aeth=rnr:1
end

scenario rnr.write_imm_no_recv
area rnr
ref IBA 9.4.3 / 9.7.5.2.8 (WRITE with immediate consumes a receive: RNR without one)
title WRITE_ONLY_WITH_IMMEDIATE with no receive posted gets an RNR NAK
conforming RNR NAK at PSN +0
send WRITE_ONLY_WITH_IMMEDIATE psn=0 va=0 payload=16 pattern=3 imm=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=rnr
end

scenario rnr.write_needs_no_recv
area rnr
ref IBA 9.4.3 (a WRITE without immediate consumes no receive)
title a WRITE_ONLY with no receive posted is ACKed, not RNR NAKed
conforming an ACK
send WRITE_ONLY psn=0 va=0 payload=16 pattern=4 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
end

scenario rnr.send_multi_no_recv
area rnr
ref IBA 9.7.5.2.8 (RNR NAK of the first packet of a message)
title SEND_FIRST with no receive posted gets an RNR NAK at its PSN
conforming RNR NAK at PSN +0
send SEND_FIRST psn=0 payload=1024 pattern=5 ackreq
expect ACKNOWLEDGE psn=0 aeth=rnr
end

scenario rnr.req_retry
area rnr
ref IBA 9.7.5.2.8 / 9.7.6 (the requester retries after the RNR timer)
qp rc rnr_retry=7
title the DUT resends a SEND after an RNR NAK and completes it after the ACK
conforming the same SEND_ONLY again at PSN +0; a SEND completion
fill off=0 len=32 pattern=6
post send off=0 len=32
expect SEND_ONLY psn=0 payload=32 pattern=6
send ACKNOWLEDGE psn=0 aeth=rnr:1
expect SEND_ONLY psn=0 payload=32 pattern=6
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=SEND
end

scenario rnr.req_retry_exceeded
area rnr
ref IBA 9.7.6 / 11.6.2 (RNR retry count exhausted: RNR_RETRY_EXC_ERR)
qp rc rnr_retry=1
title with rnr_retry 1 a second RNR NAK fails the SEND with RNR retry exceeded
conforming one resend, then an RNR_RETRY_EXC_ERR completion and the QP in ERR
post send off=0 len=8
expect SEND_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=rnr:1
expect SEND_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=rnr:1
cqe status=RNR_RETRY_EXC_ERR
qpstate ERR
end

scenario rnr.srq_empty
area rnr
ref IBA 10.2.9 / 9.7.5.2.8 (an empty SRQ: RNR NAK, as an empty receive queue)
qp rc mr=4096 access=rwas min_rnr=12
title a SEND to a QP whose SRQ is empty gets an RNR NAK; after a receive is posted to the SRQ the resent SEND completes
conforming RNR NAK with timer 12, then an ACK and a receive completion
send SEND_ONLY psn=0 payload=8 pattern=9 ackreq
expect ACKNOWLEDGE psn=0 aeth=rnr:12
recv off=0 len=64
send SEND_ONLY psn=0 payload=8 pattern=9 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RECV len=8
end
