# Atomics at the DUT's responder (IBA 9.4.5) and from its requester.

scenario atomic.fetch_add
area atomics
ref IBA 9.4.5 FETCH_ADD; 9.5.6 AtomicAckETH
title FETCH_ADD 5 on 10 returns 10 and leaves 15
conforming ATOMIC_ACKNOWLEDGE at PSN +0 with original data 10; memory holds 15
fill off=0 u64=10
send FETCH_ADD psn=0 va=0 add=5 ackreq
expect ATOMIC_ACKNOWLEDGE psn=0 aeth=ack orig=10 msn=1
mem off=0 u64=15
end

scenario atomic.cmp_swap_equal
area atomics
ref IBA 9.4.5 COMPARE_SWAP
title COMPARE_SWAP compare 7 swap 99 on 7 swaps
conforming original data 7; memory holds 99
fill off=8 u64=7
send COMPARE_SWAP psn=0 va=8 cmp=7 swap=99 ackreq
expect ATOMIC_ACKNOWLEDGE psn=0 aeth=ack orig=7
mem off=8 u64=99
end

scenario atomic.cmp_swap_differ
area atomics
ref IBA 9.4.5 COMPARE_SWAP
title COMPARE_SWAP compare 8 swap 99 on 7 does not swap
conforming original data 7; memory still 7
fill off=8 u64=7
send COMPARE_SWAP psn=0 va=8 cmp=8 swap=99 ackreq
expect ATOMIC_ACKNOWLEDGE psn=0 aeth=ack orig=7
mem off=8 u64=7
end

scenario atomic.misaligned
area atomics
ref IBA 9.4.5 (an atomic's address is 8-byte aligned, else Invalid Request)
title FETCH_ADD at an address 4 bytes off alignment is NAKed Invalid Request
conforming NAK Invalid Request at PSN +0, memory unchanged
fill off=0 u64=10
send FETCH_ADD psn=0 va=4 add=5 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:inv
mem off=0 u64=10
end

scenario atomic.duplicate_from_cache
area atomics
ref IBA 9.4.5 / 9.7.4 (a duplicate atomic is answered from the saved result, not executed again)
title a duplicate FETCH_ADD returns the first result and adds nothing
conforming both ATOMIC_ACKNOWLEDGEs carry original data 10; memory holds 15, not 20
fill off=0 u64=10
send FETCH_ADD psn=0 va=0 add=5 ackreq
expect ATOMIC_ACKNOWLEDGE psn=0 orig=10
send FETCH_ADD psn=0 va=0 add=5 ackreq
expect ATOMIC_ACKNOWLEDGE psn=0 orig=10
mem off=0 u64=15
end

scenario atomic.bad_rkey
area atomics
ref IBA 10.6.3.2 (R_Key check of an atomic)
title a FETCH_ADD with a wrong R_Key is NAKed Remote Access Error
conforming NAK Remote Access Error
send FETCH_ADD psn=0 va=0 add=1 rkey=bad ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario atomic.beyond_end
area atomics
ref IBA 10.6.3.2 (an atomic's 8 bytes lie inside the region)
title a FETCH_ADD at the region's length is NAKed Remote Access Error
conforming NAK Remote Access Error
send FETCH_ADD psn=0 va=4096 add=1 ackreq
expect ACKNOWLEDGE psn=0 aeth=nak:acc
end

scenario atomic.then_write_psn
area atomics
ref IBA 9.7.1 (an atomic takes one PSN)
title after a FETCH_ADD at +0 a WRITE at +1 is ACKed
conforming the WRITE at +1 is ACKed with MSN 2
send FETCH_ADD psn=0 va=0 add=1 ackreq
expect ATOMIC_ACKNOWLEDGE psn=0
send WRITE_ONLY psn=1 va=64 payload=8 pattern=1 ackreq
expect ACKNOWLEDGE psn=1 aeth=ack msn=2
end

scenario atomic.req_fetch_add
area atomics
ref IBA 9.4.5 FETCH_ADD (DUT as requester); 11.4.2 (the original data lands in the local buffer)
title the DUT's FETCH_ADD goes out with its operands; the answer's data lands in its buffer
conforming FETCH_ADD at the DUT's PSN +0 with add 3; after the ATOMIC_ACKNOWLEDGE a FETCH_ADD completion, 41 in the buffer
post fetch_add off=0 len=8 va=0x10000 rkey=0x1234 add=3
expect FETCH_ADD psn=0 va=0x10000 swap=3 ackreq
send ATOMIC_ACKNOWLEDGE psn=0 aeth=ack msn=1 orig=41
cqe status=SUCCESS op=FETCH_ADD
mem off=0 u64=41
end

scenario atomic.req_cmp_swap
area atomics
ref IBA 9.4.5 COMPARE_SWAP (DUT as requester)
title the DUT's COMPARE_SWAP carries compare and swap operands
conforming COMPARE_SWAP with compare 5 and swap 6; a COMP_SWAP completion
post cmp_swap off=0 len=8 va=0x10008 rkey=0x1234 cmp=5 swap=6
expect COMPARE_SWAP psn=0 va=0x10008 cmp=5 swap=6
send ATOMIC_ACKNOWLEDGE psn=0 aeth=ack msn=1 orig=5
cqe status=SUCCESS op=COMP_SWAP
mem off=0 u64=5
end

scenario atomic.req_resend
area atomics
ref IBA 9.7.6 (after a sequence NAK the requester resends the atomic, operands unchanged)
title the DUT resends its FETCH_ADD after a sequence NAK
conforming the same FETCH_ADD (PSN +0, add 7) again; success with the original data of the answer
post fetch_add off=0 len=8 va=0x10000 rkey=0x1234 add=7
expect FETCH_ADD psn=0 swap=7
send ACKNOWLEDGE psn=0 aeth=nak:seq msn=0
expect FETCH_ADD psn=0 swap=7 va=0x10000
send ATOMIC_ACKNOWLEDGE psn=0 aeth=ack msn=1 orig=100
cqe status=SUCCESS op=FETCH_ADD
mem off=0 u64=100
end
