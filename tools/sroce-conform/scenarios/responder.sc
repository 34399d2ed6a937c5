# Responder scenarios: the tester is the requester, the DUT's RC QP answers.
# Format: docs/conformance.md.  PSNs are offsets from the tester's PSN.

scenario resp.write_only
area responder
ref IBA 9.7.5 (responder), 9.4.3 RDMA WRITE; C9-88
level mandatory
title a WRITE_ONLY of 64 bytes with AckReq is placed and ACKed
conforming the data lands at the RETH address and one ACK with the request's PSN comes back
qp rc mr=4096
send WRITE_ONLY psn=0 va=0 payload=64 pattern=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=ack msn=1
mem off=0 len=64 pattern=1
end
