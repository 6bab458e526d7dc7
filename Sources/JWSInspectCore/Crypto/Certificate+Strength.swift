internal import COpenSSL

extension Certificate {
    /// The strength of a key or a signature as OpenSSL rates it.
    package struct Strength: Sendable, Equatable, CustomStringConvertible {
        /// What it is: "RSA 1024", "EC P-256" for a key; "md5WithRSAEncryption" for a signature.
        package let name: String
        /// The digest of a signature as OpenSSL names it ("MD5", "SHA1", "SHA256"); nil for a key,
        /// or a signature scheme without a separate digest.
        package let digest: String?
        /// The security OpenSSL credits it with, in bits (`EVP_PKEY_get_security_bits`, or
        /// `X509_get_signature_info`: 63 for SHA-1 signatures, 39 for MD5 ones).
        package let securityBits: Int

        /// "RSA 1024 (80-bit security)", "md5WithRSAEncryption (MD5, 39-bit security)".
        package var description: String {
            "\(name) (\(digest.map { "\($0), " } ?? "")\(securityBits)-bit security)"
        }
    }

    /// The subject public key's strength, or nil when OpenSSL cannot decode the key.
    package var keyStrength: Strength? {
        withUnsafeX509Pointer { x509 in
            // X509_get0_pubkey lends the certificate's own key (not to be freed), for this call.
            guard let key = X509_get0_pubkey(x509) else {
                OpenSSLError.drain()
                return nil
            }
            return Strength(
                name: PublicKey.summary(of: key), digest: nil, securityBits: Int(EVP_PKEY_get_security_bits(key)))
        }
    }

    /// The certificate's own signature's strength (its issuer signed it so), or nil when OpenSSL
    /// does not know the algorithm.
    package var signatureStrength: Strength? {
        var digest = NID_undef
        var bits: Int32 = 0
        let (known, algorithm) = withUnsafeX509Pointer { x509 in
            (X509_get_signature_info(x509, &digest, nil, &bits, nil) == 1, X509_get_signature_nid(x509))
        }
        guard known else {
            OpenSSLError.drain()
            return nil
        }
        let name = OBJ_nid2ln(algorithm).map { String(cString: $0) } ?? "algorithm \(algorithm)"
        let digestName = digest == NID_undef ? nil : OBJ_nid2sn(digest).map { String(cString: $0) }
        return Strength(name: name, digest: digestName, securityBits: Int(bits))
    }
}
