/* make bench: the OpenSSL floor of one token from the command line.
 *
 * Only the OpenSSL calls jwsinspect cannot avoid for one App Store token, with nothing of
 * its own around them: read the trusted root from PEM, parse the three x5c certificates
 * (DER), validate leaf <- intermediate <- root with X509_verify_cert, and verify the token's
 * ES256 signature with the leaf's key.
 *
 *   openssl-floor ROOT.pem LEAF.der INTERMEDIATE.der X5C-ROOT.der SIGNING-INPUT SIGNATURE.raw
 *
 * Exit 0 when the chain and the signature verify, 1 otherwise. bench.sh prepares the files
 * from a minted token (jq, base64) and times this program beside jwsinspect and the Swift
 * floor, so the ratio shows how much of one token's start-up is OpenSSL's own.
 */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <stdio.h>
#include <stdlib.h>

static long slurp(const char *path, unsigned char *buffer, long size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -1;
    long length = (long)fread(buffer, 1, (size_t)size, file);
    fclose(file);
    return length;
}

static X509 *der_certificate(const char *path) {
    unsigned char buffer[16384];
    long length = slurp(path, buffer, sizeof buffer);
    const unsigned char *cursor = buffer;
    return length > 0 ? d2i_X509(NULL, &cursor, length) : NULL;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: openssl-floor ROOT.pem LEAF.der INTERMEDIATE.der X5C-ROOT.der INPUT SIGNATURE\n");
        return 2;
    }
    FILE *pem = fopen(argv[1], "r");
    if (pem == NULL) return 1;
    X509 *root = PEM_read_X509(pem, NULL, NULL, NULL);
    fclose(pem);
    X509 *leaf = der_certificate(argv[2]);
    X509 *intermediate = der_certificate(argv[3]);
    X509 *x5cRoot = der_certificate(argv[4]);
    if (root == NULL || leaf == NULL || intermediate == NULL || x5cRoot == NULL) return 1;

    X509_STORE *store = X509_STORE_new();
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    if (store == NULL || untrusted == NULL || context == NULL || X509_STORE_add_cert(store, root) != 1
        || sk_X509_push(untrusted, intermediate) <= 0 || X509_STORE_CTX_init(context, store, leaf, untrusted) != 1
        || X509_verify_cert(context) != 1)
        return 1;

    unsigned char input[16384], raw[64];
    long inputLength = slurp(argv[5], input, sizeof input);
    if (inputLength <= 0 || slurp(argv[6], raw, sizeof raw) != 64) return 1;
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, 32, NULL), *s = BN_bin2bn(raw + 32, 32, NULL);
    if (signature == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(signature, r, s) != 1) return 1;
    unsigned char *der = NULL;
    int derLength = i2d_ECDSA_SIG(signature, &der);
    EVP_MD_CTX *digest = EVP_MD_CTX_new();
    if (derLength <= 0 || digest == NULL
        || EVP_DigestVerifyInit(digest, NULL, EVP_sha256(), NULL, X509_get0_pubkey(leaf)) != 1
        || EVP_DigestVerify(digest, der, (size_t)derLength, input, (size_t)inputLength) != 1)
        return 1;
    return 0;
}
