public import FoundationEssentials

/// How to verify: which roots to trust, at what time, and what the payload must say.
public struct VerificationOptions: Sendable {
    /// When certificates must be valid.
    public enum TimePolicy: Sendable, Equatable {
        /// The payload's `signedDate` (`receiptCreationDate` for app transactions), or now when absent.
        case signingTime
        /// The current time.
        case now
        /// A fixed moment (`--at <date>`).
        case fixed(Date)
    }

    /// The trusted roots (by default Apple's embedded roots).
    public var trustStore: TrustStore
    public var timePolicy: TimePolicy = .signingTime
    /// What "now" is; injectable so tests never depend on the clock.
    public var now: Date = Date()
    public var expectedBundleId: String?
    public var expectedAppAppleId: Int64?
    public var expectedEnvironment: Environment?
    /// `--account-token`: the transaction's or renewal info's `appAccountToken` must equal it.
    public var expectedAccountToken: UUID?
    /// `--device-id`: the device's verification ID, checked against `deviceVerification`.
    public var deviceVerificationID: UUID?
    /// `--require-active`: fail unless the transaction grants access at the access time.
    public var requireActive = false
    /// What the access decision reads beside each token (`fetch`: the customer asked about,
    /// a subscription's verified renewal info and Apple's status); empty by default.
    public var accessContext = Entitlement.Context()
    /// Overrides payload kind recognition (`--type`).
    public var kindOverride: PayloadKind?
    /// OpenSSL's `X509_V_FLAG_X509_STRICT` (`--x509-strict`): an App Store chain that its strict
    /// checks refuse fails `chain` (by default it passes under RFC 5280, as in Apple's Swift, Java
    /// and Node libraries, with a note naming the checks), and a pinned single certificate gets
    /// the strict checks as well.
    public var strictX509 = false

    /// `--key`: the developer's own keys, by key ID, that tokens without `x5c` are verified with.
    public var developerKeys: [DeveloperKey] = []
    /// False with `--no-verify`: decode and compare fields, check nothing cryptographic.
    public var verifySignatures = true
    /// False when nothing shows whether the chain is valid now too (`--quiet`): it decides no
    /// status, so it is not computed (a second chain validation, when the check time is not now).
    public var reportsValidityNow = true
    /// Asks whether certificates are revoked (an online check); nil: nothing is asked, no
    /// `revocation` check is made, and verification never leaves the machine.
    public var revocation: (any RevocationRequester)?
    /// With `revocation`: a certificate that names no responder fails the chain instead of
    /// being noted.
    public var requireRevocationCheck = false
    /// How messages word a `Hint` (what to give or ask for); the command line names its options.
    public var hints: any HintWording = PlainHints()

    /// `--access-at`: the moment access is judged at; nil: now. Independent of `timePolicy`
    /// (`--at`), which is when certificates are checked.
    public var accessAt: Date?

    /// When access is decided (`--require-active`, summaries): `accessAt`, else now.
    public var accessTime: Date { accessAt ?? now }

    public init(trustStore: TrustStore = AppleCertificates.embeddedTrustStore) {
        self.trustStore = trustStore
    }
}
