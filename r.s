Device not recognized to implement inline feature. Disabling it
---------------------------------------------------------------------------------------

************************************
* Waiting for client to connect... *
************************************
---------------------------------------------------------------------------------------
                    RDMA_Read BW Test
 Dual-port       : OFF		Device         : sroce0
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 PCIe relax order: ON
 ibv_wr* API     : OFF
 CQ Moderation   : 100
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 1
 Outstand reads  : 16
 rdma_cm QPs	 : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x2000 PSN 0xf6b4e8 OUT 0x10 RKey 0x000202 VAddr 0x007fe4ffb06000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:09:03:01
 remote address: LID 0000 QPN 0x2000 PSN 0x6831ae OUT 0x10 RKey 0x000202 VAddr 0x007fbdf7ee1000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:09:03:02
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 8388608    200              128.06             124.36 		   0.000016
---------------------------------------------------------------------------------------
