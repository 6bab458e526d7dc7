// The OpenSSL 3 headers jwsinspect uses, and static inline wrappers for the
// function-like macros Swift cannot import. Shims carry the module prefix.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <openssl/asn1.h>
#include <openssl/asn1t.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/http.h>
#include <openssl/objects.h>
#include <openssl/ocsp.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

static inline STACK_OF(X509) *COpenSSL_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int COpenSSL_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline int COpenSSL_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *COpenSSL_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
/// Frees the stack only; the certificates in it stay owned by their wrappers.
static inline void COpenSSL_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

static inline void COpenSSL_free(void *pointer) { OPENSSL_free(pointer); }

// Path validation (TrustStore.validate): one verify callback for every validation, steered by
// a COpenSSL_VerifyState the caller owns and lends to the context for the one X509_verify_cert.

/// The most findings one validation records (`dropped` counts the others).
#define COPENSSL_VERIFY_FINDINGS 32

/// What the verify callback lets through and what it records, for one validation.
typedef struct {
    /// Nonzero: a certificate signature over SHA-1 passes the authentication level
    /// (X509_V_ERR_CA_MD_TOO_WEAK for a SHA-1 signature only; MD5 and every other weak digest
    /// still fail). Legacy receipt chains: Apple signed them with SHA-1 until 2025.
    int allowSHA1Signatures;
    /// Nonzero: every failure is recorded (error and depth, once each) and verification goes on,
    /// so that all the checks a validation would fail are known, not only the first.
    int collect;
    /// Findings recorded, at most COPENSSL_VERIFY_FINDINGS.
    int count;
    /// Findings beyond COPENSSL_VERIFY_FINDINGS, not recorded.
    int dropped;
    int errors[COPENSSL_VERIFY_FINDINGS];
    int depths[COPENSSL_VERIFY_FINDINGS];
} COpenSSL_VerifyState;

static int COpenSSL_verify_callback(int ok, X509_STORE_CTX *context) {
    if (ok) return 1;
    // The state is lent through the context's application data (ex_data index 0).
    COpenSSL_VerifyState *state = (COpenSSL_VerifyState *)X509_STORE_CTX_get_ex_data(context, 0);
    if (state == NULL) return 0;
    int error = X509_STORE_CTX_get_error(context);
    if (state->allowSHA1Signatures && error == X509_V_ERR_CA_MD_TOO_WEAK) {
        // The certificate whose signature is too weak for the level: let SHA-1 alone through.
        X509 *certificate = X509_STORE_CTX_get_current_cert(context);
        int digest = NID_undef;
        if (certificate != NULL && X509_get_signature_info(certificate, &digest, NULL, NULL, NULL) == 1
            && digest == NID_sha1) {
            X509_STORE_CTX_set_error(context, X509_V_OK);
            return 1;
        }
    }
    if (state->collect) {
        int depth = X509_STORE_CTX_get_error_depth(context);
        int known = 0;
        for (int index = 0; index < state->count; index++) {
            if (state->errors[index] == error && state->depths[index] == depth) known = 1;
        }
        if (!known && state->count < COPENSSL_VERIFY_FINDINGS) {
            state->errors[state->count] = error;
            state->depths[state->count] = depth;
            state->count++;
        } else if (!known) {
            state->dropped++;
        }
        X509_STORE_CTX_set_error(context, X509_V_OK);
        return 1;
    }
    return 0;
}

/// A collecting review's stand-in for OpenSSL's internal_verify, the step that checks each
/// certificate's signature and validity time (and nothing of the strict checks, which run
/// before it): a review follows a validation of the same certificates at the same time that
/// passed, so the review skips the signatures (two P-384 verifications on Apple's chain, the
/// costliest step of a single token) instead of computing them again.
static int COpenSSL_verify_already_checked(X509_STORE_CTX *context) {
    (void)context;
    return 1;
}

/// X509_verify_cert on an initialised context with COpenSSL_verify_callback steered by `state`,
/// which is lent to the context for this call only (the caller keeps owning it). Returns
/// X509_verify_cert's result (1 valid). A collecting review does not check signatures or
/// validity times again (COpenSSL_verify_already_checked).
static inline int COpenSSL_X509_verify_cert_with_state(X509_STORE_CTX *context, COpenSSL_VerifyState *state) {
    if (X509_STORE_CTX_set_ex_data(context, 0, state) != 1) return -1;
    X509_STORE_CTX_set_verify_cb(context, COpenSSL_verify_callback);
    if (state->collect) X509_STORE_CTX_set_verify(context, COpenSSL_verify_already_checked);
    int result = X509_verify_cert(context);
    X509_STORE_CTX_set_ex_data(context, 0, NULL);
    return result;
}

/// Finding `index` (below state->count) of a collecting validation: its X509_V_ERR code and depth.
static inline int COpenSSL_VerifyState_error(const COpenSSL_VerifyState *state, int index) {
    return state->errors[index];
}
static inline int COpenSSL_VerifyState_depth(const COpenSSL_VerifyState *state, int index) {
    return state->depths[index];
}

static inline long COpenSSL_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/// ES256 verification of a raw `r || s` signature (`half` bytes each) over a digest, through
/// the EC_KEY interface: the path `openssl speed ecdsap256` measures, without the DER
/// encoding and decoding that EVP_PKEY_verify needs. Returns 1 valid, 0 invalid, -1 error.
/// The EC_KEY interface is deprecated in OpenSSL 3 but present in every 3.x release;
/// builds without it (OPENSSL_NO_DEPRECATED_3_0) return -2 so the caller uses EVP.
static inline int COpenSSL_ECDSA_verify_raw(EC_KEY *key, const unsigned char *digest, int digestLength,
                                            const unsigned char *rs, int half) {
#ifndef OPENSSL_NO_DEPRECATED_3_0
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(rs, half, NULL);
    BIGNUM *s = BN_bin2bn(rs + half, half, NULL);
    if (sig == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(sig, r, s) != 1) {
        ECDSA_SIG_free(sig);
        BN_free(r);
        BN_free(s);
        return -1;
    }
    int result = ECDSA_do_verify(digest, digestLength, sig, key);
    ECDSA_SIG_free(sig);
    return result;
#pragma clang diagnostic pop
#else
    return -2;
#endif
}

/// The EC_KEY inside an EVP_PKEY (a new reference), or NULL.
static inline EC_KEY *COpenSSL_EVP_PKEY_get1_EC_KEY(EVP_PKEY *key) {
#ifndef OPENSSL_NO_DEPRECATED_3_0
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    return EVP_PKEY_get1_EC_KEY(key);
#pragma clang diagnostic pop
#else
    return NULL;
#endif
}

static inline void COpenSSL_EC_KEY_free(EC_KEY *key) {
#ifndef OPENSSL_NO_DEPRECATED_3_0
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    EC_KEY_free(key);
#pragma clang diagnostic pop
#endif
}

// CMS (receipts): CMS SignedData and the ASN.1 SETs and SEQUENCEs (ASN1_TYPE stacks) of receipt
// content, read by the core (Sources/JWSInspectCore/Receipt) and written by the test PKI's minter.
static inline int COpenSSL_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *stack) {
    return sk_CMS_SignerInfo_num(stack);
}
static inline CMS_SignerInfo *COpenSSL_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *stack, int index) {
    return sk_CMS_SignerInfo_value(stack, index);
}
/// Frees the stack and every certificate in it (as CMS_get1_certs hands them over, one reference each).
static inline void COpenSSL_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

static inline STACK_OF(ASN1_TYPE) *COpenSSL_sk_ASN1_TYPE_new_null(void) { return sk_ASN1_TYPE_new_null(); }
/// On success the stack owns `value`; on failure (returns 0) the caller still does.
static inline int COpenSSL_sk_ASN1_TYPE_push(STACK_OF(ASN1_TYPE) *stack, ASN1_TYPE *value) {
    return sk_ASN1_TYPE_push(stack, value);
}
static inline int COpenSSL_sk_ASN1_TYPE_num(const STACK_OF(ASN1_TYPE) *stack) { return sk_ASN1_TYPE_num(stack); }
static inline ASN1_TYPE *COpenSSL_sk_ASN1_TYPE_value(const STACK_OF(ASN1_TYPE) *stack, int index) {
    return sk_ASN1_TYPE_value(stack, index);
}
/// Frees the stack and every ASN1_TYPE in it (a decoded ASN1_SEQUENCE_ANY or ASN1_SET_ANY).
static inline void COpenSSL_sk_ASN1_TYPE_pop_free(STACK_OF(ASN1_TYPE) *stack) {
    sk_ASN1_TYPE_pop_free(stack, ASN1_TYPE_free);
}


// Receipts read fast (CMSSignedData's fast path): a CMS ContentInfo of signedData decoded with
// OpenSSL's ASN.1 templates, every field kept as its encoding and the certificates each kept as
// its bytes, not parsed (OpenSSL 3 decodes a certificate's public key through its provider
// framework, about a third of a millisecond each: most of a receipt's cost). The caller parses
// each distinct certificate set once; the container without its certificates, re-encoded here,
// is what d2i_CMS_ContentInfo and CMS_verify then read.

/// SignedData (RFC 5652 5.1) with its fields as their encodings (ASN1_ANY) and the
/// certificates (and CRLs) as a SET OF ANY.
typedef struct {
    ASN1_TYPE *version;
    ASN1_TYPE *digestAlgorithms;
    ASN1_TYPE *encapContentInfo;
    STACK_OF(ASN1_TYPE) *certificates;
    STACK_OF(ASN1_TYPE) *crls;
    ASN1_TYPE *signerInfos;
} COpenSSL_ReceiptSignedData;

ASN1_SEQUENCE(COpenSSL_ReceiptSignedData) = {
    ASN1_SIMPLE(COpenSSL_ReceiptSignedData, version, ASN1_ANY),
    ASN1_SIMPLE(COpenSSL_ReceiptSignedData, digestAlgorithms, ASN1_ANY),
    ASN1_SIMPLE(COpenSSL_ReceiptSignedData, encapContentInfo, ASN1_ANY),
    ASN1_IMP_SET_OF_OPT(COpenSSL_ReceiptSignedData, certificates, ASN1_ANY, 0),
    ASN1_IMP_SET_OF_OPT(COpenSSL_ReceiptSignedData, crls, ASN1_ANY, 1),
    ASN1_SIMPLE(COpenSSL_ReceiptSignedData, signerInfos, ASN1_ANY),
} static_ASN1_SEQUENCE_END(COpenSSL_ReceiptSignedData)

/// ContentInfo (RFC 5652 3) whose content is such a SignedData.
typedef struct {
    ASN1_OBJECT *contentType;
    COpenSSL_ReceiptSignedData *signedData;
} COpenSSL_ReceiptContentInfo;

ASN1_SEQUENCE(COpenSSL_ReceiptContentInfo) = {
    ASN1_SIMPLE(COpenSSL_ReceiptContentInfo, contentType, ASN1_OBJECT),
    ASN1_EXP(COpenSSL_ReceiptContentInfo, signedData, COpenSSL_ReceiptSignedData, 0),
} static_ASN1_SEQUENCE_END(COpenSSL_ReceiptContentInfo)

/// Decodes `length` bytes (DER or BER) as such a ContentInfo; `*consumed` is set to the bytes
/// it spans. NULL when they are not one (the caller then reads them as before).
static inline COpenSSL_ReceiptContentInfo *COpenSSL_ReceiptContentInfo_d2i(const unsigned char *bytes, long length,
                                                                          long *consumed) {
    const unsigned char *cursor = bytes;
    ASN1_VALUE *value = ASN1_item_d2i(NULL, &cursor, length, ASN1_ITEM_rptr(COpenSSL_ReceiptContentInfo));
    *consumed = value == NULL ? 0 : (long)(cursor - bytes);
    return (COpenSSL_ReceiptContentInfo *)value;
}

static inline void COpenSSL_ReceiptContentInfo_free(COpenSSL_ReceiptContentInfo *info) {
    ASN1_item_free((ASN1_VALUE *)info, ASN1_ITEM_rptr(COpenSSL_ReceiptContentInfo));
}

/// The content type's NID (NID_pkcs7_signed for signedData).
static inline int COpenSSL_ReceiptContentInfo_type(const COpenSSL_ReceiptContentInfo *info) {
    return OBJ_obj2nid(info->contentType);
}

/// Nonzero when the container carries CRLs (the fast path then steps aside).
static inline int COpenSSL_ReceiptContentInfo_has_crls(const COpenSSL_ReceiptContentInfo *info) {
    return info->signedData->crls != NULL;
}

/// The number of embedded certificates (0 when the field is absent).
static inline int COpenSSL_ReceiptContentInfo_certificate_count(const COpenSSL_ReceiptContentInfo *info) {
    return info->signedData->certificates == NULL ? 0 : sk_ASN1_TYPE_num(info->signedData->certificates);
}

/// The encoding of certificate `index` (its whole TLV), or NULL when that choice is not a
/// certificate (a universal SEQUENCE): attribute certificates and others are read as before.
static inline const unsigned char *COpenSSL_ReceiptContentInfo_certificate(const COpenSSL_ReceiptContentInfo *info,
                                                                           int index, int *length) {
    ASN1_TYPE *choice = sk_ASN1_TYPE_value(info->signedData->certificates, index);
    if (choice == NULL || choice->type != V_ASN1_SEQUENCE || choice->value.sequence == NULL) return NULL;
    *length = choice->value.sequence->length;
    return choice->value.sequence->data;
}

/// The container without its certificates, re-encoded and decoded as OpenSSL's CMS_ContentInfo
/// (every other field as it was encoded), or NULL.
static inline CMS_ContentInfo *COpenSSL_ReceiptContentInfo_without_certificates(COpenSSL_ReceiptContentInfo *info) {
    STACK_OF(ASN1_TYPE) *certificates = info->signedData->certificates;
    info->signedData->certificates = NULL;
    unsigned char *encoded = NULL;
    int length = ASN1_item_i2d((ASN1_VALUE *)info, &encoded, ASN1_ITEM_rptr(COpenSSL_ReceiptContentInfo));
    info->signedData->certificates = certificates;
    if (length <= 0 || encoded == NULL) return NULL;
    const unsigned char *cursor = encoded;
    CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &cursor, length);
    if (cms != NULL && cursor != encoded + length) {
        CMS_ContentInfo_free(cms);
        cms = NULL;
    }
    OPENSSL_free(encoded);
    return cms;
}

// OCSP's HTTP exchange writes to a socket: a write after the responder reset the connection
// raises SIGPIPE, whose default ends the process. The request is small and written at once, so
// a hang-up is nearly always seen on reading instead (tests see exit 75 either way); so that it
// never ends the process, the calling thread blocks SIGPIPE for the exchange, then takes back a
// SIGPIPE the exchange raised (sigtimedwait, not waiting).

/// Blocks SIGPIPE for the calling thread; `previous` receives the mask to restore.
static inline void COpenSSL_block_sigpipe(sigset_t *previous) {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, previous);
}

/// Discards a SIGPIPE pending for the calling thread (when it was not blocked before) and
/// restores `previous`.
static inline void COpenSSL_restore_sigpipe(const sigset_t *previous) {
    sigset_t pending;
    sigemptyset(&pending);
    if (!sigismember(previous, SIGPIPE) && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        struct timespec now = {0, 0};
        sigtimedwait(&pipe, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, previous, NULL);
}

// OCSP's connection, made by jwsinspect so that a refusal is an answer: OpenSSL's own client
// (BIO_do_connect_retry) tries a refused connection again every 100 ms until its timeout.

/// A non-blocking connect BIO to `host` and `port`, not yet connected; NULL when it cannot be made.
static inline BIO *COpenSSL_BIO_new_nonblocking_connect(const char *host, const char *port) {
    BIO *bio = BIO_new(BIO_s_connect());
    if (bio == NULL) return NULL;
    if (BIO_set_conn_hostname(bio, host) <= 0 || BIO_set_conn_port(bio, port) <= 0 || BIO_set_nbio(bio, 1) <= 0) {
        BIO_free_all(bio);
        return NULL;
    }
    return bio;
}
static inline int COpenSSL_BIO_do_connect(BIO *bio) { return (int)BIO_do_connect(bio); }
static inline int COpenSSL_BIO_should_retry(BIO *bio) { return BIO_should_retry(bio); }
static inline int COpenSSL_BIO_reset(BIO *bio) { return BIO_reset(bio); }

// OCSP (revocation checks): the certificate's responder URL from its Authority Information Access.

/// The number of OCSP responder URLs in `certificate`'s Authority Information Access, and the
/// first of them copied into `buffer` (NUL-terminated) when it fits in `capacity` bytes; -1 when
/// it does not fit. The stack X509_get1_ocsp returns is freed here.
static inline int COpenSSL_X509_first_ocsp_url(X509 *certificate, char *buffer, size_t capacity) {
    STACK_OF(OPENSSL_STRING) *urls = X509_get1_ocsp(certificate);
    if (urls == NULL) return 0;
    int count = sk_OPENSSL_STRING_num(urls);
    if (count > 0) {
        const char *first = sk_OPENSSL_STRING_value(urls, 0);
        size_t length = strlen(first);
        if (length + 1 > capacity) count = -1;
        else memcpy(buffer, first, length + 1);
    }
    X509_email_free(urls);
    return count;
}

#endif
