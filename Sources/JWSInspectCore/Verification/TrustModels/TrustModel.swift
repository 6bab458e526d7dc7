/// Where a token's signing key comes from, and why it is trusted: one case per trust model.
///
/// Selected once per token from its header (`select`); each case says which algorithms it
/// allows, which checks its validation decides, supplies the signing key, and words the
/// verdict. A new model (a developer's own key chosen by `kid`, with no `x5c`) is a new case,
/// its selection rule in `select`, and its validation in a file beside these.
enum TrustModel {
    /// App Store data: an `x5c` leaf and intermediate leading to a trusted root, with Apple's
    /// marker OIDs (`AppStoreChain`).
    case appStoreChain(leaf: Certificate, intermediate: Certificate)
    /// A one-certificate `x5c` identical to a trusted root given with `--root`, such as the
    /// certificate StoreKit Testing in Xcode signs with (`PinnedCertificate`).
    case pinnedCertificate(Certificate, isXcode: Bool)
    /// A developer's own key, chosen by the token's `kid` among the `--key`s given: the tokens
    /// developers sign for the App Store Server API and StoreKit (`DeveloperKeyPolicy`).
    case developerKey(DeveloperKey)

    /// The algorithms App Store data is signed with.
    static let appStoreAlgorithms = ["ES256"]

    /// The algorithms the model accepts in `alg`.
    var allowedAlgorithms: [String] {
        switch self {
        case .appStoreChain, .pinnedCertificate, .developerKey: Self.appStoreAlgorithms
        }
    }

    /// The checks the model's validation decides (besides `x5c` and `signature`).
    var validationChecks: [any VerifierPolicy.Type] {
        switch self {
        case .appStoreChain: [ChainPolicy.self, ChainPathPolicy.self, LeafOIDPolicy.self, IntermediateOIDPolicy.self]
        case .pinnedCertificate: [ChainPolicy.self]
        case .developerKey: []
        }
    }

    /// Every check some model's validation decides.
    static let validationPolicies: [any VerifierPolicy.Type] = [
        ChainPolicy.self, ChainPathPolicy.self, LeafOIDPolicy.self, IntermediateOIDPolicy.self,
    ]

    /// The key the signature must verify with (nil when it cannot be decoded).
    ///
    /// - Parameter chainEntry: the cache's entry for the pair, when the validation looked it up.
    func signingKey(chainEntry: VerificationCache.ChainEntry?, cache: VerificationCache) -> PublicKey? {
        switch self {
        case .appStoreChain(let leaf, let intermediate):
            (chainEntry
                ?? cache.chain(leaf: leaf, intermediate: intermediate, pairChecks: AppStoreChain.markerChecks)).leafKey
        case .pinnedCertificate(let certificate, _):
            certificate.publicKey
        case .developerKey(let key):
            key.publicKey
        }
    }

    /// Whose key the signature verified with, for the `signature` check.
    var signingKeyName: String {
        switch self {
        case .developerKey(let key): "the developer key \(key.keyID)"
        case .appStoreChain, .pinnedCertificate: "the leaf"
        }
    }

    /// What was checked at the check time, for the verdict: the certificates, or for a
    /// developer's key (no certificates) the claims.
    var checkedAtCheckTime: String {
        switch self {
        case .developerKey: "claims"
        case .appStoreChain, .pinnedCertificate: "certificates"
        }
    }

    /// The verdict on a token every check passed, its hints worded by `hints`.
    func verdict(_ hints: any HintWording) -> String {
        switch self {
        case .pinnedCertificate(_, isXcode: true):
            "StoreKit Testing in Xcode token, NOT signed by the App Store: signature verified with "
                + "the trusted Xcode certificate"
        case .developerKey(let key):
            "developer-signed token: signature verified with the developer key \(key.keyID) (\(hints.word(.givenKey)))"
        case .appStoreChain, .pinnedCertificate:
            "signature and certificate chain verified"
        }
    }
}

/// The step that runs the selected trust model's validation, deciding the checks it lists
/// (`validationChecks`) from one path validation, configured once with the roots and rules.
struct TrustModelValidation: TokenStep {
    static let policies = TrustModel.validationPolicies

    let store: TrustStore
    /// Whether OpenSSL's strict checks refuse a path (`VerificationOptions.strictX509`), not only note it.
    let strictX509: Bool
    let hints: any HintWording
    let validityNow: Inspection.ValidityNow.Rule
    /// "the chain is also valid now (…)", the same for every App Store token.
    let chainValidNowText: String

    init(store: TrustStore, strictX509: Bool, hints: any HintWording, validityNow: Inspection.ValidityNow.Rule) {
        self.store = store
        self.strictX509 = strictX509
        self.hints = hints
        self.validityNow = validityNow
        self.chainValidNowText = Inspection.ValidityNow.alsoValid("chain", now: validityNow.nowText)
    }

    /// The structure checks for a one-certificate chain trusted as itself (such as StoreKit
    /// Testing in Xcode's certificate): pinned byte for byte, its structure is not what is
    /// trusted, so RFC 5280 alone unless `strictX509`.
    var pinnedChecks: TrustStore.StructureChecks { strictX509 ? .strict : .rfc5280 }

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        switch token.model {
        case .appStoreChain(let leaf, let intermediate):
            .validation(AppStoreChain.validate(leaf: leaf, intermediate: intermediate, token: token, with: self))
        case .pinnedCertificate(let certificate, let isXcode):
            .validation(PinnedCertificate.validate(certificate, isXcode: isXcode, at: token.checkTime, with: self))
        case .developerKey, nil:
            // A developer key was chosen by kid (`DeveloperKeyPolicy`): only the signature is left to check.
            .none
        }
    }

    /// Why `certificates` are not valid now, in words.
    func explainNow(_ result: TrustStore.PathValidation, certificates: [Certificate]) -> String {
        ChainPolicy.Failure(
            result: result, certificates: certificates, roots: store.roots,
            when: .phrase(validityNow.nowText, validityNow.now)
        ).text
    }
}
