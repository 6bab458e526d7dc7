package import FoundationEssentials

/// What `CertificateIssuer.issue` puts into a certificate.
package struct CertificateSpec: Sendable {
    /// The subject's common name; the subject is `CN=<commonName>, O=jwsinspect test PKI, C=US`.
    package var commonName: String
    /// The certificate serial number.
    package var serial: UInt64 = 1
    /// Start of the validity period (whole seconds; fractions are truncated).
    package var notBefore: Date
    /// End of the validity period (whole seconds; fractions are truncated).
    package var notAfter: Date
    /// `true`: basicConstraints critical CA:TRUE and keyUsage critical keyCertSign, cRLSign.
    /// `false`: basicConstraints critical CA:FALSE and keyUsage critical digitalSignature.
    package var isCA: Bool
    /// Extension OIDs (dotted numeric) added non-critical with value DER NULL (05 00), e.g. Apple's "1.2.840.113635.100.6.11.1".
    package var markerOIDs: [String] = []
    /// Add subjectKeyIdentifier and authorityKeyIdentifier (default true).
    package var keyIdentifiers: Bool = true
    /// The keyUsage extension as OpenSSL's configuration writes it ("critical,keyCertSign"),
    /// or "" for none; nil for the default that `isCA` implies.
    package var keyUsage: String?
    /// The digest the issuer signs the certificate with (default SHA-256): with an RSA issuer key
    /// `sha256WithRSAEncryption` or `sha1WithRSAEncryption`, with an EC key `ecdsa-with-SHA256` or `ecdsa-with-SHA1`.
    package var signatureDigest: DigestAlgorithm = .sha256
    /// An OCSP responder URL written into the Authority Information Access extension
    /// (`OCSP;URI:…`), or nil for none; `CertificateIssuer.checkOCSPURL` says which are taken.
    package var ocspURL: String?
    /// The extendedKeyUsage extension as OpenSSL's configuration writes it ("OCSPSigning"), or nil
    /// for none.
    package var extendedKeyUsage: String?

    /// Creates a specification; see the properties for the meaning of each value.
    package init(
        commonName: String,
        serial: UInt64 = 1,
        notBefore: Date,
        notAfter: Date,
        isCA: Bool,
        markerOIDs: [String] = [],
        keyIdentifiers: Bool = true,
        keyUsage: String? = nil,
        signatureDigest: DigestAlgorithm = .sha256,
        ocspURL: String? = nil,
        extendedKeyUsage: String? = nil
    ) {
        self.commonName = commonName
        self.serial = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCA = isCA
        self.markerOIDs = markerOIDs
        self.keyIdentifiers = keyIdentifiers
        self.keyUsage = keyUsage
        self.signatureDigest = signatureDigest
        self.ocspURL = ocspURL
        self.extendedKeyUsage = extendedKeyUsage
    }
}
