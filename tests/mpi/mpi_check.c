/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_check.c — an MPI job that checks every byte it moves, for running
 * an MPI stack (Open MPI over UCX, ...) on sroce's drop-in libibverbs.
 *
 *   ping-pong    rank 0 with every other rank, 1 B to 4 MiB: the peer
 *                checks the pattern and answers with it inverted
 *   collectives  MPI_Bcast (1 MiB), MPI_Allreduce (sums), MPI_Alltoall
 *   one-sided    MPI_Put and MPI_Get in a fence epoch (UCX: RDMA WRITE and
 *                READ on the QPs)
 *
 * Any wrong byte aborts the job (status 2).  Rank 0 prints the half
 * round-trip time of 8 B (median of 200) and the ping-pong bandwidth of
 * 1 MiB, for the reader only: tests assert behaviour, not speed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEN (4u << 20)

static int rank, nranks;

static void die(const char *what, long a, long b)
{
	fprintf(stderr, "mpi_check: rank %d: %s (%ld, %ld)\n", rank, what, a, b);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The byte at i of message (len, iter) from rank src. */
static uint8_t pat(uint32_t len, int iter, int src, size_t i)
{
	return (uint8_t)(i * 31u + len * 7u + (unsigned)iter * 13u +
			 (unsigned)src * 101u + (i >> 9));
}

static void fill(uint8_t *b, uint32_t len, int iter, int src, uint8_t x)
{
	for (size_t i = 0; i < len; i++)
		b[i] = pat(len, iter, src, i) ^ x;
}

static void check(const uint8_t *b, uint32_t len, int iter, int src, uint8_t x)
{
	for (size_t i = 0; i < len; i++)
		if (b[i] != (uint8_t)(pat(len, iter, src, i) ^ x))
			die("ping-pong byte wrong: length, offset", (long)len,
			    (long)i);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void pingpong(uint8_t *buf)
{
	static const uint32_t lens[] = { 1, 8, 64, 1000, 4096, 65536,
					 1u << 20, MAX_LEN };
	double lat[200];

	for (int peer = 1; peer < nranks; peer++) {
		if (rank != 0 && rank != peer)
			continue;
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			uint32_t len = lens[l];
			int iters = len >= (1u << 20) ? 10 : len == 8 ? 200 : 50;
			double t0 = MPI_Wtime();

			for (int it = 0; it < iters; it++) {
				double t = MPI_Wtime();

				if (rank == 0) {
					fill(buf, len, it, 0, 0);
					MPI_Send(buf, (int)len, MPI_BYTE, peer, it,
						 MPI_COMM_WORLD);
					memset(buf, 0, len);
					MPI_Recv(buf, (int)len, MPI_BYTE, peer, it,
						 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					check(buf, len, it, 0, 0xff);
				} else {
					memset(buf, 0, len);
					MPI_Recv(buf, (int)len, MPI_BYTE, 0, it,
						 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					check(buf, len, it, 0, 0);
					for (size_t i = 0; i < len; i++)
						buf[i] ^= 0xff;
					MPI_Send(buf, (int)len, MPI_BYTE, 0, it,
						 MPI_COMM_WORLD);
				}
				if (len == 8)
					lat[it] = (MPI_Wtime() - t) / 2;
			}
			if (rank != 0)
				continue;
			if (len == 8) {
				qsort(lat, (size_t)iters, sizeof(lat[0]), cmp_double);
				printf("rank 0 <-> %d: 8 B half round trip %.1f us (median of %d)\n",
				       peer, lat[iters / 2] * 1e6, iters);
			} else if (len == 1u << 20) {
				printf("rank 0 <-> %d: 1 MiB ping-pong %.2f Gbit/s\n",
				       peer, 2.0 * iters * len * 8 /
				       (MPI_Wtime() - t0) / 1e9);
			}
		}
	}
}

static void collectives(uint8_t *buf)
{
	const int n = 4096;
	int64_t *in = malloc(sizeof(*in) * (size_t)n);
	int64_t *out = malloc(sizeof(*out) * (size_t)n);
	int *a2a_in = malloc(sizeof(int) * (size_t)nranks * 1024);
	int *a2a_out = malloc(sizeof(int) * (size_t)nranks * 1024);

	if (!in || !out || !a2a_in || !a2a_out)
		die("out of memory", 0, 0);
	if (rank == 0)
		fill(buf, 1u << 20, 77, 0, 0);
	else
		memset(buf, 0, 1u << 20);
	MPI_Bcast(buf, 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD);
	for (size_t i = 0; i < (1u << 20); i++)
		if (buf[i] != pat(1u << 20, 77, 0, i))
			die("bcast byte wrong at", (long)i, 0);

	for (int i = 0; i < n; i++)
		in[i] = (int64_t)(rank + 1) * i;
	MPI_Allreduce(in, out, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (int i = 0; i < n; i++)
		if (out[i] != (int64_t)nranks * (nranks + 1) / 2 * i)
			die("allreduce sum wrong at", i, (long)out[i]);

	for (int r = 0; r < nranks; r++)
		for (int i = 0; i < 1024; i++)
			a2a_in[r * 1024 + i] = rank * 1000003 + r * 1009 + i;
	MPI_Alltoall(a2a_in, 1024, MPI_INT, a2a_out, 1024, MPI_INT,
		     MPI_COMM_WORLD);
	for (int r = 0; r < nranks; r++)
		for (int i = 0; i < 1024; i++)
			if (a2a_out[r * 1024 + i] != r * 1000003 + rank * 1009 + i)
				die("alltoall word wrong: from, index", r, i);
	free(in);
	free(out);
	free(a2a_in);
	free(a2a_out);
}

/* Each rank puts a block into its right neighbour and gets one from its
 * left; the window holds nranks blocks. */
static void one_sided(void)
{
	const int blk = 256 * 1024;
	uint8_t *win_buf, *mine = malloc((size_t)blk), *got = malloc((size_t)blk);
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	MPI_Win win;

	if (!mine || !got)
		die("out of memory", 0, 0);
	MPI_Alloc_mem((MPI_Aint)blk * 2, MPI_INFO_NULL, &win_buf);
	fill(win_buf + blk, (uint32_t)blk, 5, rank, 0);   /* for Get */
	memset(win_buf, 0, (size_t)blk);
	MPI_Win_create(win_buf, (MPI_Aint)blk * 2, 1, MPI_INFO_NULL,
		       MPI_COMM_WORLD, &win);
	fill(mine, (uint32_t)blk, 4, rank, 0);
	MPI_Win_fence(0, win);
	MPI_Put(mine, blk, MPI_BYTE, right, 0, blk, MPI_BYTE, win);
	MPI_Get(got, blk, MPI_BYTE, left, blk, blk, MPI_BYTE, win);
	MPI_Win_fence(0, win);
	for (int i = 0; i < blk; i++) {
		if (win_buf[i] != pat((uint32_t)blk, 4, left, (size_t)i))
			die("put byte wrong at", i, left);
		if (got[i] != pat((uint32_t)blk, 5, left, (size_t)i))
			die("get byte wrong at", i, left);
	}
	MPI_Win_free(&win);
	MPI_Free_mem(win_buf);
	free(mine);
	free(got);
}

int main(int argc, char **argv)
{
	uint8_t *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks < 2)
		die("needs 2 ranks at least", nranks, 0);
	buf = malloc(MAX_LEN);
	if (buf == NULL)
		die("out of memory", 0, 0);
	pingpong(buf);
	collectives(buf);
	one_sided();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_check: %d ranks: ping-pong, bcast, allreduce, alltoall, put, get: every byte right\n",
		       nranks);
	free(buf);
	MPI_Finalize();
	return 0;
}
