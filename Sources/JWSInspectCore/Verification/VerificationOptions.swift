package import FoundationEssentials

/// How to verify: which roots to trust, at what time, and what the payload must say.
package struct VerificationOptions: Sendable {
    /// When certificates must be valid.
    package enum TimePolicy: Sendable, Equatable {
        /// The payload's `signedDate` (`receiptCreationDate` for app transactions), or now when absent.
        case signingTime
        /// The current time.
        case now
        /// A fixed moment (`--at <date>`).
        case fixed(Date)
    }

    /// The trusted roots (by default Apple's embedded roots).
    package var trustStore: TrustStore
    package var timePolicy: TimePolicy = .signingTime
    /// What "now" is; injectable so tests never depend on the clock.
    package var now: Date = Date()
    package var expectedBundleId: String?
    package var expectedAppAppleId: Int64?
    package var expectedEnvironment: Environment?
    /// `--account-token`: the transaction's or renewal info's `appAccountToken` must equal it.
    package var expectedAccountToken: UUID?
    /// `--device-id`: the device's verification ID, checked against `deviceVerification`.
    package var deviceVerificationID: UUID?
    /// `--require-active`: fail unless the transaction grants access at the access time.
    package var requireActive = false
    /// What the access decision reads beside each token (`fetch`: the customer asked about,
    /// a subscription's verified renewal info and Apple's status); empty by default.
    package var accessContext = Entitlement.Context()
    /// Overrides payload kind recognition (`--type`).
    package var kindOverride: PayloadKind?
    /// OpenSSL's `X509_V_FLAG_X509_STRICT` (`--x509-strict`): an App Store chain that its strict
    /// checks refuse fails `chain` (by default it passes under RFC 5280, as in Apple's Swift, Java
    /// and Node libraries, with a note naming the checks), and a pinned single certificate gets
    /// the strict checks as well.
    package var strictX509 = false

    /// `--key`: the developer's own keys, by key ID, that tokens without `x5c` are verified with.
    package var developerKeys: [DeveloperKey] = []
    /// False with `--no-verify`: decode and compare fields, check nothing cryptographic.
    package var verifySignatures = true
    /// False when nothing shows whether the chain is valid now too (`--quiet`): it decides no
    /// status, so it is not computed (a second chain validation, when the check time is not now).
    package var reportsValidityNow = true
    /// Asks whether certificates are revoked (an online check); nil: nothing is asked, no
    /// `revocation` check is made, and verification never leaves the machine.
    package var revocation: (any RevocationRequester)?
    /// With `revocation`: a certificate that names no responder fails the chain instead of
    /// being noted.
    package var requireRevocationCheck = false
    /// How messages word a `Hint` (what to give or ask for); the command line names its options.
    package var hints: any HintWording = PlainHints()

    /// `--access-at`: the moment access is judged at; nil: now. Independent of `timePolicy`
    /// (`--at`), which is when certificates are checked.
    package var accessAt: Date?

    /// When access is decided (`--require-active`, summaries): `accessAt`, else now.
    package var accessTime: Date { accessAt ?? now }

    package init(trustStore: TrustStore = AppleCertificates.embeddedTrustStore) {
        self.trustStore = trustStore
    }
}
