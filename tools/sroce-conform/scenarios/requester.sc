# Requester: the DUT's QP sends (the agent posts work requests), the tester
# answers.  Request PSNs count from the DUT's PSN (dpsn), and so do the
# tester's responses.  The tester's "memory" is va 0x10000, R_Key 0x1234.

scenario req.write_only
area requester
ref IBA 9.4.3 RDMA WRITE; 9.7.6 (completion on the ACK)
title a 64-byte RDMA WRITE goes out as WRITE_ONLY with AckReq and completes on the ACK
conforming WRITE_ONLY at PSN +0 with the RETH as posted and the buffer's bytes; a RDMA_WRITE completion
fill off=0 len=64 pattern=1
post write off=0 len=64 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0 va=0x10000 rkey=0x1234 len=64 payload=64 pattern=1 ackreq
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.write_multi
area requester
ref IBA 9.4.3 (segmentation: FIRST and MIDDLE carry one PMTU; the RETH only on FIRST)
title a 2500-byte WRITE goes out FIRST/MIDDLE/LAST on consecutive PSNs
conforming WRITE_FIRST (DMA length 2500, 1024 bytes), MIDDLE (1024), LAST (452, AckReq)
fill off=0 len=2500 pattern=2
post write off=0 len=2500 va=0x10000 rkey=0x1234
expect WRITE_FIRST psn=0 len=2500 payload=1024 pattern=2
expect WRITE_MIDDLE psn=1 payload=1024 pattern=2 off=1024
expect WRITE_LAST psn=2 payload=452 pattern=2 off=2048 ackreq
send ACKNOWLEDGE psn=2 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.send_only
area requester
ref IBA 9.4.1 SEND
title a 100-byte SEND goes out as SEND_ONLY and completes on the ACK
conforming SEND_ONLY at PSN +0 with the buffer's bytes, AckReq; a SEND completion
fill off=0 len=100 pattern=3
post send off=0 len=100
expect SEND_ONLY psn=0 payload=100 pattern=3 ackreq
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=SEND
end

scenario req.send_imm
area requester
ref IBA 9.4.1 SEND with immediate data
title a SEND with immediate carries the ImmDt as posted
conforming SEND_ONLY_WITH_IMMEDIATE with 0xcafe
post send_imm off=0 len=8 imm=0xcafe
expect SEND_ONLY_WITH_IMMEDIATE psn=0 imm=0xcafe payload=8
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=SEND
end

scenario req.read_only
area requester
ref IBA 9.4.4 RDMA READ (DUT as requester)
title a 64-byte READ goes out and the response's bytes land in the buffer
conforming READ_REQUEST at PSN +0 with DMA length 64; a RDMA_READ completion; the response's bytes in the buffer
post read off=0 len=64 va=0x10000 rkey=0x1234
expect READ_REQUEST psn=0 va=0x10000 rkey=0x1234 len=64 ackreq
send READ_RESPONSE_ONLY psn=0 aeth=ack msn=1 payload=64 pattern=4
cqe status=SUCCESS op=RDMA_READ
mem off=0 len=64 pattern=4
end

scenario req.read_resume_middle
area requester
ref IBA 9.7.6 (a READ response gap: the requester re-requests from the first missing PSN)
title after READ_RESPONSE_FIRST and a missing MIDDLE the DUT asks again from PSN +1
conforming a READ_REQUEST at PSN +1 for VA 0x10400 and 1476 bytes; after its responses the READ completes with all 2500 bytes
post read off=0 len=2500 va=0x10000 rkey=0x1234
expect READ_REQUEST psn=0 len=2500
send READ_RESPONSE_FIRST psn=0 aeth=ack msn=0 payload=1024 pattern=5
send READ_RESPONSE_LAST psn=2 aeth=ack msn=1 payload=452 pattern=5 off=2048
expect READ_REQUEST psn=1 va=0x10400 len=1476
send READ_RESPONSE_FIRST psn=1 aeth=ack msn=0 payload=1024 pattern=5 off=1024
send READ_RESPONSE_LAST psn=2 aeth=ack msn=1 payload=452 pattern=5 off=2048
cqe status=SUCCESS op=RDMA_READ
mem off=0 len=2500 pattern=5
end

scenario req.seq_nak_resend
area requester
ref IBA 9.7.5.2.1 / 9.7.6 (PSN sequence error NAK: resend from the NAK's PSN)
title after a sequence NAK the DUT resends the WRITE
conforming the same WRITE_ONLY again at PSN +0; success after the ACK
fill off=0 len=32 pattern=6
post write off=0 len=32 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=nak:seq msn=0
expect WRITE_ONLY psn=0 payload=32 pattern=6
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.seq_nak_resend_first
area requester
ref IBA 9.7.6 / 9.4.3 (a resent multi-packet WRITE starts with WRITE_FIRST again; issue 22's rxe finding)
title after a sequence NAK at PSN +0 a 2048-byte WRITE is resent as WRITE_FIRST + WRITE_LAST
conforming WRITE_FIRST at +0 with DMA length 2048 and 1024 bytes (not a zero-length WRITE_ONLY), then WRITE_LAST at +1
fill off=0 len=2048 pattern=7
post write off=0 len=2048 va=0x10000 rkey=0x1234
expect WRITE_FIRST psn=0 len=2048
expect WRITE_LAST psn=1
send ACKNOWLEDGE psn=0 aeth=nak:seq msn=0
expect WRITE_FIRST psn=0 len=2048 payload=1024 pattern=7
expect WRITE_LAST psn=1 payload=1024 pattern=7 off=1024
send ACKNOWLEDGE psn=1 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.seq_nak_resend_last
area requester
ref IBA 9.7.6 (resend from the middle of a message: from the NAK's PSN on)
title a sequence NAK at PSN +1 of a 2-packet WRITE makes the DUT resend WRITE_LAST only
conforming WRITE_LAST at +1 with bytes 1024..2047 (the ACK-by-NAK covers +0)
fill off=0 len=2048 pattern=8
post write off=0 len=2048 va=0x10000 rkey=0x1234
expect WRITE_FIRST psn=0
expect WRITE_LAST psn=1
send ACKNOWLEDGE psn=1 aeth=nak:seq msn=0
expect WRITE_LAST psn=1 payload=1024 pattern=8 off=1024
send ACKNOWLEDGE psn=1 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.timeout_resend
area requester
ref IBA 9.7.6.1.3 (transport timer: no ACK within the timeout, resend)
qp rc timeout=12 retry=7
title with no ACK the DUT resends the WRITE after its local ACK timeout (16.8 ms)
conforming the WRITE_ONLY again at PSN +0; success after the ACK
post write off=0 len=16 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0
expect WRITE_ONLY psn=0 ms=3000
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.retry_exceeded
area requester
ref IBA 9.7.6.1.3 / 11.6.2 (retry count exhausted: RETRY_EXC_ERR, QP to ERR)
qp rc timeout=12 retry=1
title with retry_cnt 1 and no ACK the WRITE fails with retry exceeded
conforming one resend, then a RETRY_EXC_ERR completion and the QP in ERR
post write off=0 len=16 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0
expect WRITE_ONLY psn=0 ms=3000
cqe status=RETRY_EXC_ERR ms=5000
qpstate ERR
end

scenario req.nak_remote_access
area requester
ref IBA 9.7.5.2.4 / 11.6.2 (NAK Remote Access Error: REM_ACCESS_ERR, QP to ERR)
title a Remote Access Error NAK fails the WRITE with REM_ACCESS_ERR
conforming a REM_ACCESS_ERR completion, no resend, the QP in ERR
post write off=0 len=16 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=nak:acc msn=0
cqe status=REM_ACCESS_ERR
qpstate ERR
end

scenario req.nak_invalid_request
area requester
ref IBA 9.7.5.2.3 / 11.6.2 (NAK Invalid Request: REM_INV_REQ_ERR)
title an Invalid Request NAK fails the SEND with REM_INV_REQ_ERR
conforming a REM_INV_REQ_ERR completion, the QP in ERR
post send off=0 len=16
expect SEND_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=nak:inv msn=0
cqe status=REM_INV_REQ_ERR
qpstate ERR
end

scenario req.nak_remote_op
area requester
ref IBA 9.7.5.2.5 / 11.6.2 (NAK Remote Operational Error: REM_OP_ERR)
title a Remote Operational Error NAK fails the SEND with REM_OP_ERR
conforming a REM_OP_ERR completion
post send off=0 len=16
expect SEND_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=nak:op msn=0
cqe status=REM_OP_ERR
end

scenario req.implicit_ack
area requester
ref IBA 9.7.5.1.2 / 9.7.6 (an ACK acknowledges every earlier request: coalesced ACK)
title two WRITEs, one ACK for the second PSN: both complete
conforming two RDMA_WRITE completions after the single ACK of PSN +1
post write off=0 len=16 va=0x10000 rkey=0x1234
post write off=16 len=16 va=0x10010 rkey=0x1234
expect WRITE_ONLY psn=0
expect WRITE_ONLY psn=1
send ACKNOWLEDGE psn=1 aeth=ack msn=2
cqe status=SUCCESS op=RDMA_WRITE
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.duplicate_ack
area requester
ref IBA 9.7.6 (a duplicate ACK is ignored)
title a second ACK for the same PSN completes nothing more and fails nothing
conforming one RDMA_WRITE completion, no second one; the QP stays RTS
post write off=0 len=16 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0
send ACKNOWLEDGE psn=0 aeth=ack msn=1
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
cqe-none
qpstate RTS
end

scenario req.ghost_ack
area requester
ref IBA 9.7.6 (an ACK for a PSN never sent is ignored)
level optional
title an ACK for PSN +5 with only +0 outstanding completes nothing
conforming no completion for the ghost ACK; the real ACK still completes the WRITE
post write off=0 len=16 va=0x10000 rkey=0x1234
expect WRITE_ONLY psn=0
send ACKNOWLEDGE psn=5 aeth=ack msn=3
cqe-none
send ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end

scenario req.read_then_write_order
area requester
ref IBA 9.7.6 (a READ's responses complete it; a later WRITE's ACK completes both in order)
title READ then WRITE: the ACK of the WRITE implies the READ was answered
conforming READ_REQUEST at +0, WRITE_ONLY at +1; completions READ then WRITE
post read off=0 len=16 va=0x10000 rkey=0x1234
post write off=64 len=16 va=0x10100 rkey=0x1234
expect READ_REQUEST psn=0 len=16
expect WRITE_ONLY psn=1
send READ_RESPONSE_ONLY psn=0 aeth=ack msn=1 payload=16 pattern=9
send ACKNOWLEDGE psn=1 aeth=ack msn=2
cqe status=SUCCESS op=RDMA_READ
cqe status=SUCCESS op=RDMA_WRITE
mem off=0 len=16 pattern=9
end

scenario req.psn_wrap
area requester
ref IBA 9.7.1 (PSNs wrap from 0xffffff to 0)
qp rc dpsn=0xffffff
title a 2-packet WRITE starting at PSN 0xffffff continues at PSN 0
conforming WRITE_FIRST at 0xffffff, WRITE_LAST at 0; success after the ACK of 0
post write off=0 len=2048 va=0x10000 rkey=0x1234
expect WRITE_FIRST psn=0 len=2048
expect WRITE_LAST psn=1 ackreq
send ACKNOWLEDGE psn=1 aeth=ack msn=1
cqe status=SUCCESS op=RDMA_WRITE
end
