package import AppStoreTestData
internal import COpenSSL

/// Signs receipt content as CMS SignedData, as Apple's App Store and Xcode do, and spoils the result on demand.
///
/// Everything goes through OpenSSL's CMS API (`CMS_sign`, `CMS_add1_signer`, `CMS_final`,
/// `i2d_CMS_bio`, `i2d_CMS_bio_stream`, `d2i_CMS_ContentInfo`); no ASN.1 is written by hand.
package enum ReceiptMinter {
    /// How the SignedData is written.
    package enum Encoding: Sendable, CaseIterable {
        /// DER with definite lengths, as the App Store writes receipts (`CMS_final` then `i2d_CMS_bio`).
        case der
        /// BER with indefinite lengths, as StoreKit Testing in Xcode writes them
        /// (`CMS_STREAM` and `i2d_CMS_bio_stream`).
        case berIndefinite
    }

    /// CMS SignedData (content type `data`, content embedded) over `content`, one signer.
    ///
    /// - Parameters:
    ///   - content: The encapsulated content, e.g. `ReceiptBuilder.der()`.
    ///   - signer: The signing certificate and its key; its certificate is embedded.
    ///   - certificates: More certificates to embed (intermediate and root, as Apple's receipts carry).
    ///   - digest: The signer's digest algorithm (Apple: SHA-1 up to 2023, then SHA-256).
    ///   - encoding: DER (App Store) or indefinite-length BER (Xcode).
    ///   - signedAttributes: false (Apple's shape, `CMS_NOATTR`): the signature covers the content's
    ///     digest directly; true: OpenSSL's default signed attributes (content type, signing time, digest).
    /// - Returns: The SignedData ContentInfo's bytes.
    package static func sign(
        content: [UInt8],
        signer: TestCertificate,
        certificates: [TestCertificate] = [],
        digest: DigestAlgorithm = .sha256,
        encoding: Encoding = .der,
        signedAttributes: Bool = false
    ) -> [UInt8] {
        var flags = UInt32(CMS_BINARY | CMS_NOSMIMECAP | CMS_PARTIAL)
        if !signedAttributes { flags |= UInt32(CMS_NOATTR) }
        if encoding == .berIndefinite { flags |= UInt32(CMS_STREAM) }

        let extra = OpenSSL.unwrap(COpenSSL_sk_X509_new_null(), "sk_X509_new_null")
        defer { COpenSSL_sk_X509_free(extra) }
        for certificate in certificates {
            guard certificate.withUnsafeX509Pointer({ COpenSSL_sk_X509_push(extra, $0) }) > 0 else {
                OpenSSL.fail("sk_X509_push")
            }
        }
        // CMS_sign and CMS_add1_signer take their own references to the certificates and the key.
        let cms = withExtendedLifetime(certificates) {
            OpenSSL.unwrap(CMS_sign(nil, nil, extra, nil, flags), "CMS_sign")
        }
        defer { CMS_ContentInfo_free(cms) }
        _ = OpenSSL.unwrap(
            signer.withUnsafeX509Pointer { x509 in
                signer.key.withUnsafeKeyPointer { key in CMS_add1_signer(cms, x509, key, digest.md, flags) }
            },
            "CMS_add1_signer")

        let output = OpenSSL.unwrap(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(output) }
        // A read-only memory BIO borrows the bytes: it lives inside the closure that pins them.
        content.withUnsafeBufferPointer { buffer in
            let input = OpenSSL.unwrap(BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)), "BIO_new_mem_buf")
            defer { BIO_free(input) }
            switch encoding {
            case .der:
                OpenSSL.check(CMS_final(cms, input, nil, flags), "CMS_final")
                OpenSSL.check(i2d_CMS_bio(output, cms), "i2d_CMS_bio")
            case .berIndefinite:
                OpenSSL.check(i2d_CMS_bio_stream(output, cms, input, Int32(flags)), "i2d_CMS_bio_stream")
            }
        }
        return memoryBytes(output)
    }

    /// The encapsulated content of a SignedData (`d2i_CMS_ContentInfo`, `CMS_get0_content`),
    /// or nil when `receipt` does not parse or has no content.
    package static func content(of receipt: [UInt8]) -> [UInt8]? {
        withParsed(receipt) { cms in
            guard let slot = CMS_get0_content(cms), let string = slot.pointee else { return nil }
            return bytes(of: string)
        }
    }

    /// The first signer's signature value (`CMS_SignerInfo_get0_signature`), or nil.
    package static func signature(of receipt: [UInt8]) -> [UInt8]? {
        withParsed(receipt) { cms in
            guard let infos = CMS_get0_SignerInfos(cms), COpenSSL_sk_CMS_SignerInfo_num(infos) > 0,
                let info = COpenSSL_sk_CMS_SignerInfo_value(infos, 0),
                let signature = CMS_SignerInfo_get0_signature(info)
            else { return nil }
            return bytes(of: signature)
        }
    }

    /// `receipt` with the content byte at `offset` (from the content's start) inverted: the signature
    /// no longer covers the content. Finds the content with `content(of:)` in the encoding; a
    /// content OpenSSL wrote in several BER chunks may not be found, which stops the process.
    package static func tamperingContent(_ receipt: [UInt8], at offset: Int = 0) -> [UInt8] {
        guard let content = content(of: receipt), offset < content.count else {
            OpenSSL.fail("tamperingContent: no content byte \(offset)")
        }
        return inverting(receipt, at: offset, within: content, "content")
    }

    /// `receipt` with the first signer's signature byte at `offset` inverted.
    package static func tamperingSignature(_ receipt: [UInt8], at offset: Int = 0) -> [UInt8] {
        guard let signature = signature(of: receipt), offset < signature.count else {
            OpenSSL.fail("tamperingSignature: no signature byte \(offset)")
        }
        return inverting(receipt, at: offset, within: signature, "signature")
    }

    // MARK: - Helpers

    /// `bytes` with the byte at `offset` of the (first) occurrence of `part` inverted.
    private static func inverting(_ bytes: [UInt8], at offset: Int, within part: [UInt8], _ what: String) -> [UInt8] {
        guard let range = bytes.firstRange(of: part) else {
            OpenSSL.fail("the \(what) is not contiguous in the encoding")
        }
        var changed = bytes
        changed[range.lowerBound + offset] ^= 0xff
        return changed
    }

    /// Calls `body` with `receipt` parsed by `d2i_CMS_ContentInfo` (nil when it does not parse).
    private static func withParsed<T>(_ receipt: [UInt8], _ body: (OpaquePointer) -> T?) -> T? {
        let parsed = receipt.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let cms = parsed else {
            ERR_clear_error()
            return nil
        }
        defer { CMS_ContentInfo_free(cms) }
        return body(cms)
    }

    /// The bytes of an `ASN1_STRING` (borrowed; copied out).
    private static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// Everything written to a memory BIO.
    private static func memoryBytes(_ bio: OpaquePointer) -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { OpenSSL.fail("CMS output: empty") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}
