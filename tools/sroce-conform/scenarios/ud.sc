# UD (IBA 9.8.4 / 10.2.5): datagrams with a DETH; no responses; the
# receive buffer starts with 40 bytes of GRH on RoCE.

scenario ud.send
area ud
ref IBA 9.8.4 UD SEND; 11.4.1.2 (the GRH occupies the first 40 bytes)
qp ud
title a UD SEND_ONLY with the right Q_Key is received after a 40-byte GRH
conforming a receive completion of 40 + 100 bytes, the payload after the GRH, no answer on the wire
recv off=0 len=256
send SEND_ONLY psn=0 payload=100 pattern=1
cqe status=SUCCESS op=RECV len=140
mem off=40 len=100 pattern=1
expect-none
end

scenario ud.send_imm
area ud
ref IBA 9.8.4 UD SEND with immediate
qp ud
title a UD SEND_ONLY_WITH_IMMEDIATE delivers its immediate data
conforming a receive completion with immediate 0x77
recv off=0 len=256
send SEND_ONLY_WITH_IMMEDIATE psn=0 payload=8 pattern=2 imm=0x77
cqe status=SUCCESS op=RECV imm=0x77
end

scenario ud.bad_qkey
area ud
ref IBA 10.2.5 / 9.6.3 (Q_Key mismatch: the datagram is dropped)
qp ud
title a UD datagram with a wrong Q_Key is dropped, the next right one received
conforming no completion for the wrong Q_Key, one for the right
recv off=0 len=256
send SEND_ONLY psn=0 payload=16 pattern=3 qkey=0x22222222
cqe-none
send SEND_ONLY psn=1 payload=16 pattern=4
cqe status=SUCCESS op=RECV len=56
mem off=40 len=16 pattern=4
end

scenario ud.bad_dqpn
area ud
ref IBA 9.6.1.2 (a datagram to a QP that does not exist is dropped)
qp ud
title a UD datagram to a QPN the DUT does not have completes nothing
conforming no completion, no frame
recv off=0 len=256
send SEND_ONLY psn=0 payload=16 pattern=5 dqpn=0xfedcba
cqe-none
expect-none
end

scenario ud.no_recv_dropped
area ud
ref IBA 9.8.4 (UD has no RNR: a datagram without a receive is dropped)
qp ud
title a UD datagram with no receive posted is dropped silently; the next one is received
conforming no frame on the wire; a later datagram with a receive completes normally
send SEND_ONLY psn=0 payload=16 pattern=6
expect-none
recv off=0 len=256
send SEND_ONLY psn=1 payload=16 pattern=7
cqe status=SUCCESS op=RECV len=56
mem off=40 len=16 pattern=7
end

scenario ud.requester
area ud
ref IBA 9.8.4 UD SEND (DUT as requester: DETH with the Q_Key and source QP)
qp ud
title the DUT's UD SEND carries a DETH with the remote Q_Key
conforming UD SEND_ONLY with Q_Key 0x11111111 and the buffer's bytes; a SEND completion
fill off=0 len=64 pattern=8
post send off=0 len=64
expect SEND_ONLY qkey=0x11111111 payload=64 pattern=8
cqe status=SUCCESS op=SEND
end
