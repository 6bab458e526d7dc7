package import FoundationEssentials

/// Validation of a legacy receipt's signer chain: the signer's certificate (leaf), the other
/// embedded certificates (untrusted intermediates), and trusted roots (Apple Inc. Root by
/// default; receipts never chain to Apple Root CA G2 or G3).
///
/// **Algorithms.** Apple's receipt chains up to 2025 are signed with SHA-1 (the WWDR
/// intermediates of 2008, 2013 and G7 and the leaves they issued), which OpenSSL 3 refuses
/// from authentication security level 1 up (`X509_V_ERR_CA_MD_TOO_WEAK`), and no level allows
/// SHA-1 while refusing MD5. Receipt chains are therefore validated at level 2 (every key of
/// at least 112-bit security: RSA 2048 bits; every certificate signature over SHA-224 or
/// stronger) except that a certificate signature over SHA-1 passes (`algorithmFloor`,
/// `TrustStore.AlgorithmFloor.level2AllowingSHA1Signatures`, on this validation's context
/// only): MD5 signatures and keys under 2048-bit RSA are refused anywhere in the path, the
/// signer's certificate included. The roots trusted are still only those configured, so a
/// SHA-1 collision would have to be forged under Apple's own WWDR CA. The CMS signer's own
/// digest meets the same floor (`ReceiptSigner`'s `signature` check).
package enum ReceiptChain {
    /// SHA-256 fingerprint of Apple Inc. Root ("Apple Root CA", 2006 to 2035).
    package static let appleIncRootFingerprint = "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"
    /// SHA-256 fingerprint of the self-signed "StoreKit" certificate (2020 to 2040) that
    /// StoreKit Testing in Xcode signs receipts with.
    package static let storeKitFingerprint = "ff0ba36e721d2db741d2aa11e6112ef78bf7131b46c7f035b00891d045c864fe"
    /// The weakest keys and signatures receipt chains and CMS signers may use: level 2, SHA-1 allowed.
    package static let algorithmFloor = TrustStore.AlgorithmFloor.level2AllowingSHA1Signatures

    /// The default trust anchor of receipts: the embedded Apple Inc. Root alone.
    package static let appleIncRoot: TrustStore = TrustStore(
        lazyRootDERs: AppleCertificates.embeddedRootDERs.filter {
            Digest.sha256($0).hexString() == appleIncRootFingerprint
        })

    /// Who signed a receipt, judged from the embedded certificates before any validation.
    package enum Signer: Sendable, Equatable {
        /// A certificate chain as the App Store's (several certificates).
        case appStore
        /// One self-signed certificate named "StoreKit": StoreKit Testing in Xcode, not the
        /// App Store. `knownCertificate` when it is the certificate Xcode ships
        /// (`storeKitFingerprint`).
        case storeKitTesting(knownCertificate: Bool)
    }

    /// One reason a receipt's chain is not valid.
    package enum Failure: Sendable, Equatable, CustomStringConvertible {
        /// OpenSSL did not validate a path to a trusted root; the error and its depth (0 = leaf).
        case path(X509VerifyError, depth: Int32)
        /// The signer's certificate lacks `AppleCertificates.leafMarkerOID`.
        case leafMarkerMissing(subject: String)
        /// No intermediate carries `AppleCertificates.intermediateMarkerOID`.
        case intermediateMarkerMissing

        package var description: String {
            switch self {
            case .path(let error, let depth):
                let role = depth == 0 ? "the leaf" : depth < 0 ? "the chain" : "the certificate at depth \(depth)"
                return "\(role): \(error)"
            case .leafMarkerMissing(let subject):
                return "the leaf \(subject) lacks Apple's receipt-signing marker \(AppleCertificates.leafMarkerOID)"
            case .intermediateMarkerMissing:
                return "no intermediate carries Apple's WWDR marker \(AppleCertificates.intermediateMarkerOID)"
            }
        }
    }

    /// The outcome of validating a receipt's chain.
    package struct Validation: Sendable {
        /// Who signed it (App Store chain or StoreKit Testing in Xcode).
        package let signer: Signer
        /// OpenSSL's path validation (the path, leaf first, when valid).
        package let path: TrustStore.PathValidation
        /// Every reason the chain is not valid; empty when valid.
        package let failures: [Failure]
        /// The time the chain was validated at.
        package let time: Date

        /// True when the path validated and, for App Store receipts, both marker OIDs are present.
        package var isValid: Bool { failures.isEmpty }
    }

    /// Who signed `container`: StoreKit Testing when it embeds exactly one certificate, the
    /// signer's, self-issued with common name "StoreKit"; the App Store otherwise.
    package static func signer(of container: CMSSignedData) -> Signer {
        let certificate = container.signerCertificate
        guard container.certificates.count == 1, certificate.isSelfIssued, certificate.commonName == "StoreKit" else {
            return .appStore
        }
        return .storeKitTesting(knownCertificate: certificate.sha256Fingerprint == storeKitFingerprint)
    }

    /// Validates the signer chain of `container` at `time` (normally the receipt's creation date).
    ///
    /// App Store receipts: the signer's certificate must chain through the other embedded
    /// certificates to a root of `trustStore`, carry `AppleCertificates.leafMarkerOID`, and an
    /// intermediate of the path must carry `AppleCertificates.intermediateMarkerOID`. StoreKit
    /// Testing receipts: valid only when `trustStore` holds the StoreKit certificate itself (no
    /// marker OIDs: it has none). Both at `algorithmFloor` (SHA-1 allowed, MD5 not, see above).
    ///
    /// - Parameters:
    ///   - trustStore: the trusted roots; Apple Inc. Root by default.
    ///   - time: the moment every certificate must be valid at.
    ///
    /// A run validates each set of embedded certificates once per window of time in which no
    /// certificate it could involve (the embedded ones and the trusted roots) starts or stops
    /// being in date (`Remembered`): a receipt of the same certificates checked at another time
    /// of the window gets the answer a new validation would give, for the same reason as a JWS
    /// chain's (`VerificationCache`).
    package static func validate(_ container: CMSSignedData, trustStore: TrustStore = appleIncRoot, at time: Date)
        -> Validation
    {
        let seconds = Timestamp.seconds(time)
        let remembered = container.embedded.validations
        let signerIndex = container.signerIndex
        if let seconds,
            let known = remembered.withLock({ list in
                list.last { $0.store === trustStore && $0.signerIndex == signerIndex && $0.covers(seconds) }
            })
        {
            return Validation(signer: known.signer, path: known.path, failures: known.failures, time: time)
        }
        let validation = freshValidation(container, trustStore: trustStore, at: time)
        if let seconds, let window = window(around: seconds, container.certificates + trustStore.roots) {
            let record = Remembered(
                store: trustStore, signerIndex: signerIndex, after: window.after, before: window.before,
                signer: validation.signer, path: validation.path, failures: validation.failures)
            remembered.withLock { list in
                if list.count >= Remembered.limit { list.removeFirst() }
                list.append(record)
            }
        }
        return validation
    }

    /// A validation of one certificate set kept for the window of time around the moment it was
    /// made in which no certificate it could involve starts or stops being in date: at any
    /// moment of the window, OpenSSL is given the same certificates, each in date or not as it
    /// was, so it gives the same answer (time enters path validation through certificate dates
    /// alone; revocation, which does not, is a policy of its own asked of every receipt).
    struct Remembered: Sendable {
        /// The validations one certificate set keeps (a run's receipts span a few windows).
        static let limit = 8

        /// The roots it was validated against (held, so that its identity stays theirs).
        let store: TrustStore
        /// The signer's position among the embedded certificates.
        let signerIndex: Int
        /// Seconds since 1970, both excluded: the window.
        let after: Int64
        let before: Int64
        let signer: Signer
        let path: TrustStore.PathValidation
        let failures: [Failure]

        func covers(_ seconds: Int64) -> Bool { after < seconds && seconds < before }
    }

    /// The seconds, both excluded, between which no certificate of `certificates` starts or stops
    /// being in date around `seconds`; nil when a date is unreadable or `seconds` is one of them.
    static func window(around seconds: Int64, _ certificates: [Certificate]) -> (after: Int64, before: Int64)? {
        var after = Int64.min
        var before = Int64.max
        for certificate in certificates {
            for date in [certificate.notBefore, certificate.notAfter] {
                guard let date, let boundary = Timestamp.seconds(date), boundary != seconds else { return nil }
                if boundary < seconds {
                    after = max(after, boundary)
                } else {
                    before = min(before, boundary)
                }
            }
        }
        return (after, before)
    }

    /// `validate` without what a run remembers.
    private static func freshValidation(_ container: CMSSignedData, trustStore: TrustStore, at time: Date)
        -> Validation
    {
        let signer = signer(of: container)
        let leaf = container.signerCertificate
        let others = container.certificates.filter { $0 !== leaf }
        let path = trustStore.validate(
            leaf: leaf, intermediates: others, at: time, checks: .rfc5280, floor: algorithmFloor)
        var failures: [Failure] = []
        if let error = path.error { failures.append(.path(error, depth: path.errorDepth)) }
        if signer == .appStore {
            if leaf.extensionValue(oid: AppleCertificates.leafMarkerOID) == nil {
                failures.append(.leafMarkerMissing(subject: leaf.subject))
            }
            // The path's intermediates when it validated; else every embedded non-root certificate.
            let intermediates =
                path.isValid ? Array(path.path.dropFirst().dropLast()) : others.filter { !$0.isSelfIssued }
            if !intermediates.contains(where: { $0.extensionValue(oid: AppleCertificates.intermediateMarkerOID) != nil }
            ) {
                failures.append(.intermediateMarkerMissing)
            }
        }
        return Validation(signer: signer, path: path, failures: failures, time: time)
    }
}
