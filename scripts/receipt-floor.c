/* make bench: the OpenSSL floor of a batch of receipts.
 *
 * What no receipt verifier can avoid per receipt, as OpenSSL alone does it, for each line of
 * base64 in FILE: decode the base64 (EVP_DecodeBlock), digest the content (EVP_Digest with the
 * signer's digest), verify the signer's RSA signature over that digest (EVP_PKEY_verify on a
 * context made once, as `openssl speed rsa2048` does), and read every TLV header of the
 * content once (ASN1_get_object), which any reader of the receipt's fields must. What a run
 * does once is done once, untimed: the first receipt's container is decoded (CMS) for the
 * signer's key, digest, signature and where the content lies (every line is the same receipt).
 *
 *   receipt-floor FILE
 *
 * Prints receipts/second (best of three passes over the file) and exits 0 when every
 * receipt verified, 1 otherwise. bench-receipts.sh runs it beside jwsinspect, so that a
 * receipt's ratio to `openssl speed rsa2048` can be read against what OpenSSL alone reaches
 * on the same receipts: a receipt of 200 in-app entries is 100 KB to decode and digest.
 */
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every TLV header within [p, end), recursing into constructed ones; -1 when one is malformed. */
static long walk(const unsigned char *p, const unsigned char *end, int depth) {
    long headers = 0;
    while (p < end) {
        const unsigned char *start = p;
        long length = 0;
        int tag = 0, class = 0;
        int result = ASN1_get_object(&p, &length, &tag, &class, end - start);
        if (result & 0x80) return -1;
        headers++;
        if ((result & V_ASN1_CONSTRUCTED) && depth < 8) {
            long inner = walk(p, p + length, depth + 1);
            if (inner < 0) return -1;
            headers += inner;
        } else if (tag == V_ASN1_OCTET_STRING && length > 1 && depth < 8 && (p[0] == 0x31 || p[0] == 0x30)) {
            /* A receipt's in-app entry is a SET inside an OCTET STRING. */
            long inner = walk(p, p + length, depth + 1);
            if (inner > 0) headers += inner;
        }
        p += length;
    }
    return headers;
}

/* What the first receipt tells once: the signer's key, digest and signature, the content's place. */
struct signer {
    EVP_PKEY_CTX *context;
    const EVP_MD *digest;
    unsigned char signature[1024];
    size_t signature_length;
    long content_offset, content_length;
};

static int prepare(const unsigned char *text, int length, unsigned char *der, struct signer *signer) {
    int decoded = EVP_DecodeBlock(der, text, length);
    while (length > 0 && text[length - 1] == '=') decoded--, length--;
    const unsigned char *cursor = der;
    CMS_ContentInfo *cms = decoded > 0 ? d2i_CMS_ContentInfo(NULL, &cursor, decoded) : NULL;
    if (cms == NULL) return 0;
    STACK_OF(CMS_SignerInfo) *infos = CMS_get0_SignerInfos(cms);
    CMS_SignerInfo *info = sk_CMS_SignerInfo_value(infos, 0);
    STACK_OF(X509) *certificates = CMS_get1_certs(cms);
    X509 *certificate = NULL;
    for (int i = 0; i < sk_X509_num(certificates); i++)
        if (CMS_SignerInfo_cert_cmp(info, sk_X509_value(certificates, i)) == 0) certificate = sk_X509_value(certificates, i);
    X509_ALGOR *digest_algorithm = NULL;
    CMS_SignerInfo_get0_algs(info, NULL, NULL, &digest_algorithm, NULL);
    const ASN1_OBJECT *oid = NULL;
    X509_ALGOR_get0(&oid, NULL, NULL, digest_algorithm);
    signer->digest = EVP_get_digestbyobj(oid);
    ASN1_OCTET_STRING *signature = CMS_SignerInfo_get0_signature(info);
    signer->signature_length = (size_t)ASN1_STRING_length(signature);
    memcpy(signer->signature, ASN1_STRING_get0_data(signature), signer->signature_length);
    ASN1_OCTET_STRING **content = CMS_get0_content(cms);
    const unsigned char *data = ASN1_STRING_get0_data(*content);
    signer->content_length = ASN1_STRING_length(*content);
    /* The content's bytes inside the DER (a definite-length OCTET STRING holds them whole). */
    signer->content_offset = -1;
    for (long i = 0; i + signer->content_length <= decoded; i++)
        if (memcmp(der + i, data, (size_t)signer->content_length) == 0) {
            signer->content_offset = i;
            break;
        }
    signer->context = EVP_PKEY_CTX_new(X509_get0_pubkey(certificate), NULL);
    int ok = certificate != NULL && signer->digest != NULL && signer->content_offset >= 0 && signer->context != NULL
        && EVP_PKEY_verify_init(signer->context) == 1 && EVP_PKEY_CTX_set_signature_md(signer->context, signer->digest) == 1;
    sk_X509_pop_free(certificates, X509_free);
    CMS_ContentInfo_free(cms);
    return ok;
}

static int verify(const unsigned char *text, int length, unsigned char *der, const struct signer *signer) {
    int decoded = EVP_DecodeBlock(der, text, length);
    if (decoded <= 0 || signer->content_offset + signer->content_length > decoded) return 0;
    const unsigned char *content = der + signer->content_offset;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    if (EVP_Digest(content, (size_t)signer->content_length, digest, &digest_length, signer->digest, NULL) != 1) return 0;
    if (EVP_PKEY_verify(signer->context, signer->signature, signer->signature_length, digest, digest_length) != 1)
        return 0;
    return walk(content, content + signer->content_length, 0) > 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: receipt-floor FILE\n");
        return 64;
    }
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL) return 66;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *text = malloc((size_t)size + 1);
    unsigned char *der = malloc((size_t)size + 1);
    if (text == NULL || der == NULL || fread(text, 1, (size_t)size, file) != (size_t)size) return 74;
    fclose(file);
    struct signer signer;
    long first = 0;
    while (first < size && text[first] != '\n') first++;
    if (!prepare(text, (int)first, der, &signer)) {
        fprintf(stderr, "receipt-floor: the first line is not a receipt signed as expected\n");
        return 1;
    }
    double best = 0;
    long count = 0;
    int ok = 1;
    for (int pass = 0; pass < 3; pass++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        count = 0;
        for (long line = 0; line < size;) {
            long next = line;
            while (next < size && text[next] != '\n') next++;
            if (next > line) {
                ok &= verify(text + line, (int)(next - line), der, &signer);
                count++;
            }
            line = next + 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
        double rate = (double)count / seconds;
        if (rate > best) best = rate;
    }
    printf("%.0f\n", best);
    return ok ? 0 : 1;
}
