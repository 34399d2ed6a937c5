/* SPDX-License-Identifier: BSD-3-Clause */
/* pcap2corpus DIR FILE... — one corpus file per captured frame. */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE], path[4096];
	struct pcap_pkthdr *h;
	const unsigned char *f;
	unsigned int n = 0;
	int i;

	for (i = 2; i < argc; i++) {
		pcap_t *pc = pcap_open_offline(argv[i], err);

		if (pc == NULL) {
			fprintf(stderr, "pcap2corpus: %s\n", err);
			return 1;
		}
		while (pcap_next_ex(pc, &h, &f) == 1) {
			FILE *o;

			snprintf(path, sizeof(path), "%s/frame-%05u", argv[1], n++);
			o = fopen(path, "wb");
			if (o == NULL)
				return 1;
			fwrite(f, 1, h->caplen, o);
			fclose(o);
		}
		pcap_close(pc);
	}
	printf("%u frames\n", n);
	return 0;
}
