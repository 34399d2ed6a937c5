# Responder: the tester is the requester, the DUT's QP answers.
# Format: docs/conformance.md.  Request PSNs count from the tester's PSN
# (tpsn), and so do the PSNs of the DUT's responses.  PMTU 1024.
# References: InfiniBand Architecture Specification vol. 1 (IBA), ch. 9.

scenario resp.write_only
area responder
ref IBA 9.4.3 RDMA WRITE; 9.7.5.1 ACK generation
title a WRITE_ONLY of 64 bytes with AckReq is placed and ACKed
conforming the data lands at the RETH address and one ACK with the request's PSN and MSN 1 comes back
send WRITE_ONLY psn=0 va=0 payload=64 pattern=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
mem off=0 len=64 pattern=1
end

scenario resp.write_multi
area responder
ref IBA 9.4.3 RDMA WRITE (FIRST, MIDDLE, LAST); 9.7.5.1
title a 2500-byte WRITE in three packets is placed and ACKed once at its last PSN
conforming one ACK for PSN +2, MSN 1; the 2500 bytes in memory
send WRITE_FIRST psn=0 va=0 len=2500 payload=1024 pattern=2
send WRITE_MIDDLE psn=1 payload=1024 pattern=2 off=1024
send WRITE_LAST psn=2 payload=452 pattern=2 off=2048 ackreq
expect ACKNOWLEDGE psn=2 aeth=ack msn=1
mem off=0 len=2500 pattern=2
end

scenario resp.write_zero_len
area responder
ref IBA 9.4.3 RDMA WRITE; 10.6.3 (a zero-length RDMA operation needs no valid R_Key)
level optional
title a zero-length WRITE_ONLY with R_Key 0 is ACKed
conforming an ACK, no NAK: the R_Key of a zero-length transfer is not checked
send WRITE_ONLY psn=0 va=0 rkey=0 len=0 payload=0 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
end

scenario resp.send_only
area responder
ref IBA 9.4.1 SEND; 9.7.5.1
title a SEND_ONLY consumes a receive and completes it
conforming an ACK, a receive completion of 100 bytes, the bytes in the buffer
recv off=0 len=256
send SEND_ONLY psn=0 payload=100 pattern=3 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RECV len=100
mem off=0 len=100 pattern=3
end

scenario resp.send_multi
area responder
ref IBA 9.4.1 SEND (FIRST, MIDDLE, LAST)
title a 2148-byte SEND in three packets fills one receive
conforming one ACK at PSN +2, one receive completion of 2148 bytes
recv off=0 len=4096
send SEND_FIRST psn=0 payload=1024 pattern=4
send SEND_MIDDLE psn=1 payload=1024 pattern=4 off=1024
send SEND_LAST psn=2 payload=100 pattern=4 off=2048 ackreq
expect ACKNOWLEDGE psn=2 aeth=ack msn=1
cqe status=SUCCESS op=RECV len=2148
mem off=0 len=2148 pattern=4
end

scenario resp.send_imm
area responder
ref IBA 9.4.1 SEND with immediate data; 11.4.2.1 (work completion carries ImmDt)
title SEND_ONLY_WITH_IMMEDIATE delivers its immediate data in the completion
conforming a receive completion with the immediate data 0x12345678
recv off=0 len=256
send SEND_ONLY_WITH_IMMEDIATE psn=0 payload=16 pattern=5 imm=0x12345678 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
cqe status=SUCCESS op=RECV len=16 imm=0x12345678
end

scenario resp.write_imm
area responder
ref IBA 9.4.3 RDMA WRITE with immediate data (consumes a receive WQE)
title WRITE_ONLY_WITH_IMMEDIATE places the data and completes a receive with the immediate
conforming the data in memory, a RECV_RDMA_WITH_IMM completion with 0xabcd
recv off=2048 len=16
send WRITE_ONLY_WITH_IMMEDIATE psn=0 va=0 payload=64 pattern=6 imm=0xabcd ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RECV_RDMA_WITH_IMM imm=0xabcd
mem off=0 len=64 pattern=6
end

scenario resp.two_sends_msn
area responder
ref IBA 9.7.5.1.1 (MSN counts completed messages)
title two SEND_ONLYs: the second ACK carries MSN 2
conforming the ACK of PSN +1 carries MSN 2
recv off=0 len=256
recv off=256 len=256
send SEND_ONLY psn=0 payload=32 pattern=7
send SEND_ONLY psn=1 payload=32 pattern=8 ackreq
expect ACKNOWLEDGE psn=1 aeth=ack msn=2
cqe status=SUCCESS op=RECV len=32
cqe status=SUCCESS op=RECV len=32
end

scenario resp.read_only
area responder
ref IBA 9.4.4 RDMA READ; 9.7.5.1 (READ response carries AETH)
title a 512-byte READ is answered by one READ_RESPONSE_ONLY with the memory's bytes
conforming READ_RESPONSE_ONLY at the request's PSN, AETH ACK, 512 bytes of the pattern
fill off=0 len=512 pattern=9
send READ_REQUEST psn=0 va=0 len=512 ackreq
expect READ_RESPONSE_ONLY psn=0 aeth=ack payload=512 pattern=9
end

scenario resp.read_multi
area responder
ref IBA 9.4.4 RDMA READ (a response per PMTU, the request takes as many PSNs)
title a 2500-byte READ is answered FIRST, MIDDLE, LAST on PSNs +0..+2
conforming three responses with consecutive PSNs, 1024 + 1024 + 452 bytes of the memory
fill off=0 len=2500 pattern=10
send READ_REQUEST psn=0 va=0 len=2500 ackreq
expect READ_RESPONSE_FIRST psn=0 aeth=ack payload=1024 pattern=10
expect READ_RESPONSE_MIDDLE psn=1 payload=1024 pattern=10 off=1024
expect READ_RESPONSE_LAST psn=2 aeth=ack payload=452 pattern=10 off=2048
end

scenario resp.read_then_write_psn
area responder
ref IBA 9.7.1 (a READ request advances the expected PSN by its response count)
title after a 3-PSN READ the next request's PSN is +3
conforming the WRITE at PSN +3 is ACKed (not NAKed as a sequence error)
fill off=0 len=2500 pattern=11
send READ_REQUEST psn=0 va=0 len=2500 ackreq
expect READ_RESPONSE_FIRST psn=0
expect READ_RESPONSE_MIDDLE psn=1
expect READ_RESPONSE_LAST psn=2
send WRITE_ONLY psn=3 va=3000 payload=16 pattern=12 ackreq
expect ACKNOWLEDGE psn=3 aeth=ack
end

scenario resp.read_zero_len
area responder
ref IBA 9.4.4 RDMA READ of length 0
level optional
title a zero-length READ is answered by one empty READ_RESPONSE_ONLY
conforming READ_RESPONSE_ONLY with no payload
send READ_REQUEST psn=0 va=0 rkey=0 len=0 ackreq
expect READ_RESPONSE_ONLY psn=0 payload=0
end

scenario resp.psn_gap_nak
area responder
ref IBA 9.7.5.1.4 / 9.7.4 (PSN sequence error: one NAK per gap, at the expected PSN)
title a request ahead of the expected PSN gets one PSN-sequence NAK; a second one none
conforming NAK "PSN sequence error" carrying the expected PSN +0, then silence for the next out-of-order request, then the resent +0 is ACKed
send WRITE_ONLY psn=1 va=0 payload=16 pattern=13 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:seq
send WRITE_ONLY psn=2 va=0 payload=16 pattern=13 ackreq
expect-none
send WRITE_ONLY psn=0 va=0 payload=16 pattern=13 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
end

scenario resp.dup_write
area responder
ref IBA 9.7.5.1.2 / 9.7.4 (duplicate requests are acknowledged, not re-executed into errors)
title a duplicate WRITE_ONLY is ACKed again
conforming an ACK for the duplicate, the QP stays RTS
send WRITE_ONLY psn=0 va=0 payload=16 pattern=14 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
send WRITE_ONLY psn=0 va=0 payload=16 pattern=14 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
qpstate RTS
end

scenario resp.dup_send_no_second_recv
area responder
ref IBA 9.7.4 (a duplicate SEND does not consume another receive WQE)
title a duplicate SEND_ONLY is ACKed and does not complete a second receive
conforming a second ACK, exactly one receive completion
recv off=0 len=64
recv off=64 len=64
send SEND_ONLY psn=0 payload=16 pattern=15 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
send SEND_ONLY psn=0 payload=16 pattern=15 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
cqe status=SUCCESS op=RECV len=16
cqe-none
end

scenario resp.dup_read_whole
area responder
ref IBA 9.4.4 / 9.7.4 (a duplicate READ is executed again)
title a duplicate READ is answered again in full
conforming the same READ_RESPONSE_ONLY again at PSN +0
fill off=0 len=256 pattern=16
send READ_REQUEST psn=0 va=0 len=256 ackreq
expect READ_RESPONSE_ONLY psn=0 payload=256 pattern=16
send READ_REQUEST psn=0 va=0 len=256 ackreq
expect READ_RESPONSE_ONLY psn=0 payload=256 pattern=16
end

scenario resp.dup_read_middle
area responder
ref IBA 9.7.4 (a duplicate READ may start at any PSN of the original: the responder answers from there)
title a READ re-requested from its second PSN is answered from that PSN
conforming READ_RESPONSE_FIRST at +1 with bytes 1024.., then LAST at +2
fill off=0 len=2500 pattern=17
send READ_REQUEST psn=0 va=0 len=2500 ackreq
expect READ_RESPONSE_FIRST psn=0
expect READ_RESPONSE_MIDDLE psn=1
expect READ_RESPONSE_LAST psn=2
send READ_REQUEST psn=1 va=1024 len=1476 ackreq
expect READ_RESPONSE_FIRST psn=1 payload=1024 pattern=17 off=1024
expect READ_RESPONSE_LAST psn=2 payload=452 pattern=17 off=2048
end

scenario resp.opseq_middle_first
area responder
ref IBA 9.7.4 (opcode sequence check: MIDDLE without FIRST is an Invalid Request)
title a WRITE_MIDDLE with no message in progress is NAKed Invalid Request, the QP goes to ERR
conforming NAK Invalid Request at PSN +0, the QP in ERR
send WRITE_MIDDLE psn=0 payload=1024 pattern=18 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:inv
qpstate ERR
end

scenario resp.opseq_first_then_only
area responder
ref IBA 9.7.4 (opcode sequence: after WRITE_FIRST only MIDDLE or LAST)
title WRITE_FIRST then WRITE_ONLY (the issue's rxe retransmission) is NAKed Invalid Request
conforming NAK Invalid Request at PSN +1
send WRITE_FIRST psn=0 va=0 len=2048 payload=1024 pattern=19
send WRITE_ONLY psn=1 va=0 len=0 payload=0 ackreq
expect ACKNOWLEDGE psn=1 aeth=nak:inv
end

scenario resp.opseq_send_then_write
area responder
ref IBA 9.7.4 (opcode sequence: a SEND in progress continues with SEND_MIDDLE/LAST)
title SEND_FIRST then WRITE_ONLY is NAKed Invalid Request
conforming NAK Invalid Request at PSN +1
recv off=0 len=4096
send SEND_FIRST psn=0 payload=1024 pattern=20
send WRITE_ONLY psn=1 va=0 payload=16 pattern=20 ackreq
expect ACKNOWLEDGE psn=1 aeth=nak:inv
end

scenario resp.len_mismatch
area responder
ref IBA 9.7.4 (length check: a WRITE_ONLY's payload equals its DMA length)
title WRITE_ONLY with DMA length 100 and 64 bytes of payload is NAKed Invalid Request
conforming NAK Invalid Request
send WRITE_ONLY psn=0 va=0 len=100 payload=64 pattern=21 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:inv
end

scenario resp.short_first
area responder
ref IBA 9.7.4 (FIRST and MIDDLE packets carry exactly one PMTU)
title a WRITE_FIRST of 512 bytes at PMTU 1024 is NAKed Invalid Request
conforming NAK Invalid Request
send WRITE_FIRST psn=0 va=0 len=2048 payload=512 pattern=22 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:inv
end

scenario resp.oversize
area responder
ref IBA 9.7.4 (a packet's payload is at most the PMTU)
title a WRITE_ONLY of 2048 bytes at PMTU 1024 is NAKed Invalid Request
conforming NAK Invalid Request
send WRITE_ONLY psn=0 va=0 payload=2048 pattern=23 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:inv
end

scenario resp.bad_tver
area responder
ref IBA 9.6.1.1 (packet header validation: TVer not 0 is dropped silently)
title a WRITE_ONLY with transport version 1 is dropped without an answer
conforming no frame; a correct request after it is ACKed at the same PSN
send WRITE_ONLY psn=0 va=0 payload=16 pattern=24 tver=1 ackreq
expect-none
send WRITE_ONLY psn=0 va=0 payload=16 pattern=24 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
end

scenario resp.bad_icrc
area responder
ref IBA 9.6 / RoCEv2 A17.3.3 (a packet with a bad ICRC is dropped silently)
title a WRITE_ONLY with a damaged ICRC is dropped without an answer
conforming no frame; the same request with a good ICRC is ACKed
send WRITE_ONLY psn=0 va=0 payload=16 pattern=25 badicrc ackreq
expect-none
send WRITE_ONLY psn=0 va=0 payload=16 pattern=25 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
end

scenario resp.bad_dqpn
area responder
ref IBA 9.6.1.2 (a packet to a QP that does not exist is dropped)
title a WRITE_ONLY to a QPN the DUT does not have is dropped
conforming no frame
send WRITE_ONLY psn=0 va=0 payload=16 pattern=26 dqpn=0xfedcba ackreq
expect-none
end

scenario resp.bad_pkey
area responder
ref IBA 9.6.1.1 / 10.9 (P_Key check: a P_Key not in the port's table is dropped)
title a WRITE_ONLY with P_Key 0x1234 is dropped
conforming no frame; the QP stays RTS
send WRITE_ONLY psn=0 va=0 payload=16 pattern=27 pkey=0x1234 ackreq
expect-none
qpstate RTS
end

scenario resp.ack_coalesce
area responder
ref IBA 9.7.5.1.2 (an ACK acknowledges every earlier PSN: coalescing)
level optional
title two WRITEs, AckReq only on the second: the ACK of PSN +1 covers both
conforming an ACK for PSN +1 (an earlier ACK for +0 is allowed and skipped)
send WRITE_ONLY psn=0 va=0 payload=16 pattern=28
send WRITE_ONLY psn=1 va=16 payload=16 pattern=29 ackreq
expect ACKNOWLEDGE psn=1 aeth=ack msn=2
end

scenario resp.uc_write
area responder
ref IBA 9.8 UC (unacknowledged: no response)
qp uc
title a UC WRITE_ONLY is placed and not answered
conforming no frame; the bytes in memory
send WRITE_ONLY psn=0 va=0 payload=64 pattern=30
expect-none
mem off=0 len=64 pattern=30
end

scenario resp.uc_gap_drops_message
area responder
ref IBA 9.8.3 (UC: a PSN gap inside a message drops the rest of it; the next FIRST/ONLY starts clean)
qp uc
title UC WRITE_FIRST, a lost MIDDLE, WRITE_LAST: the message is dropped, the next WRITE_ONLY lands
conforming the next WRITE_ONLY's bytes in memory, no answer on the wire
send WRITE_FIRST psn=0 va=0 len=2500 payload=1024 pattern=31
send WRITE_LAST psn=2 payload=452 pattern=31 off=2048
send WRITE_ONLY psn=3 va=3000 payload=64 pattern=32
expect-none
mem off=3000 len=64 pattern=32
end

scenario resp.gap_inside_write
area responder
ref IBA 9.7.4 / 9.7.5.2.1 (a gap inside a message: sequence NAK at the first missing PSN)
title WRITE_FIRST +0 then WRITE_LAST +2 (MIDDLE +1 lost) gets a PSN-sequence NAK at +1
conforming NAK "PSN sequence error" carrying PSN +1
send WRITE_FIRST psn=0 va=0 len=2500 payload=1024 pattern=33
send WRITE_LAST psn=2 payload=452 pattern=33 off=2048 ackreq
expect ACKNOWLEDGE psn=1 aeth=nak:seq
end

scenario resp.psn_wrap
area responder
ref IBA 9.7.1 (PSNs are 24 bits and wrap from 0xffffff to 0)
qp rc tpsn=0xfffffe
title three WRITEs on PSNs 0xfffffe, 0xffffff, 0 are accepted in order
conforming an ACK for PSN 0 (+2) with MSN 3
send WRITE_ONLY psn=0 va=0 payload=8 pattern=34
send WRITE_ONLY psn=1 va=8 payload=8 pattern=35
send WRITE_ONLY psn=2 va=16 payload=8 pattern=36 ackreq
expect ACKNOWLEDGE psn=2 aeth=ack msn=3
mem off=16 len=8 pattern=36
end

scenario resp.send_too_long
area responder
ref IBA 9.7.4 / 11.6.2 (a SEND longer than the receive buffer: Invalid Request NAK, local length error at the responder)
title a 64-byte SEND into a 16-byte receive is NAKed Invalid Request and the receive completes in error
conforming NAK Invalid Request at PSN +0; the receive's completion LOC_LEN_ERR
recv off=0 len=16
send SEND_ONLY psn=0 payload=64 pattern=37 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:inv
cqe status=LOC_LEN_ERR
end

scenario resp.write_imm_zero_len
area responder
ref IBA 9.4.3 RDMA WRITE with immediate, length 0
title a zero-length WRITE_ONLY_WITH_IMMEDIATE completes a receive with its immediate
conforming an ACK and a RECV_RDMA_WITH_IMM completion of length 0 with immediate 0x5
recv off=0 len=16
send WRITE_ONLY_WITH_IMMEDIATE psn=0 va=0 rkey=0 len=0 payload=0 imm=0x5 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack
cqe status=SUCCESS op=RECV_RDMA_WITH_IMM len=0 imm=0x5
end

scenario resp.srq_send
area responder
ref IBA 10.2.9 shared receive queues; 9.4.1 SEND
qp rc mr=4096 access=rwas
title a SEND to a QP whose receives come from an SRQ consumes the SRQ's receive
conforming an ACK, a receive completion of 40 bytes, the bytes in the SRQ receive's buffer
recv off=512 len=128
send SEND_ONLY psn=0 payload=40 pattern=38 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
cqe status=SUCCESS op=RECV len=40
mem off=512 len=40 pattern=38
end
