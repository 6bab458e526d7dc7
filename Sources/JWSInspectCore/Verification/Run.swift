internal import FoundationEssentials

/// The state of one verification while its policies run. Never copied (`~Copyable`): it holds
/// a token's whole state, and a copy costs a reference count on every field.
struct Run: ~Copyable {
    let jws: CompactJWS
    let parsedChain: ParsedChain
    let signingPrefix: SHA256Prefix?
    let options: VerificationOptions
    let cache: VerificationCache
    /// The checks to run, chosen once per verifier.
    let policies: Policies
    let kind: PayloadKind
    let checkTime: Inspection.CheckTime
    /// Where the signing key comes from, and the `x5c` and `key` checks that decided it:
    /// decided once, before any policy runs (`TrustModel.select`).
    let trust: TrustDecision
    /// The trust model; nil when `x5c` selects none.
    var model: TrustModel? { trust.model }
    /// A StoreKit Testing in Xcode token: one self-signed certificate, not the App Store's chain.
    var isXcode: Bool { trust.isXcode }
    var checks: [Check] = []
    var notes: [String] = []
    var chain: [CertificateSummary]
    var validNow: Inspection.ValidityNow?
    /// What the cache knows about this token's (leaf, intermediate) pair, once the chain is checked.
    var chainEntry: VerificationCache.ChainEntry?
    /// The path validated at the check time, leaf first, ending at the trusted root (nil until
    /// the trust model's validation found one), for the checks made on it (`revocation`).
    var validatedPath: [Certificate]?
    /// A developer-signed token: a `kid` and no `x5c` in its header (the claims policies apply).
    let isDeveloperSigned: Bool
    /// Every claim of a developer-signed token, decoded once (rare: App Store data decodes only
    /// the members its policies declare) for its kind, its trust model, its identity and the
    /// claims policies; empty for any other token.
    let claims: [String: JSONValue]
    /// The payload's identity fields, read once for the identity policies.
    private(set) lazy var identity = AppIdentity(
        kind: kind, payload: isDeveloperSigned ? claims : jws.payload.essentials)
    /// What the backend policies decide on: this payload, or the ones nested in a notification.
    private(set) var subjects: [Subject] = []
    /// "now (2026-…)", formatted once per run by the verifier.
    let nowText: String
    /// "the chain is also valid now (2026-…)".
    let chainValidNowText: String
    /// Whether the ES256 verification is left to the caller (its check pending meanwhile).
    let deferringSignature: Bool
    /// The verification left to the caller, when `deferringSignature`.
    var deferredSignature: DeferredSignature?

    /// A payload the backend policies look at, and its label for messages ("data.signedTransactionInfo ").
    struct Subject {
        let label: String
        let payload: [String: JSONValue]
        let kind: PayloadKind
    }

    init(
        jws: CompactJWS, chain: ParsedChain, signingPrefix: SHA256Prefix?, options: VerificationOptions,
        cache: VerificationCache, policies: Policies, nowText: String, chainValidNowText: String,
        deferringSignature: Bool
    ) {
        self.nowText = nowText
        self.chainValidNowText = chainValidNowText
        self.deferringSignature = deferringSignature
        self.jws = jws
        self.parsedChain = chain
        self.signingPrefix = signingPrefix
        self.options = options
        self.cache = cache
        self.policies = policies
        let payload = jws.payload.essentials
        let isDeveloperSigned = chain.developerKeyID != nil
        self.isDeveloperSigned = isDeveloperSigned
        let claims = isDeveloperSigned ? jws.payload.object : [:]
        self.claims = claims
        let kind =
            options.kindOverride
            ?? (isDeveloperSigned
                // Rare (App Store data always has x5c): a developer-signed token, known by its `aud`.
                ? PayloadKind.recogniseDeveloperSigned(claims)
                : jws.payload.recognisedKind ?? PayloadKind.recognise(payload))
        self.kind = kind
        let (checkTime, note) = Inspection.CheckTime.decide(options: options, payload: payload, kind: kind)
        self.checkTime = checkTime
        if let note { notes.append(note) }
        self.chain = chain.summaries
        self.trust = TrustModel.select(jws: jws, chain: chain, options: options, claims: claims)
        checks.reserveCapacity(8)  // an App Store token gets 7 checks: one allocation, not four
    }

    /// Runs the policies on the token itself.
    mutating func execute() {
        if !policies.verifiesSignatures, jws.signature.isEmpty {
            notes.append("the signature segment is empty: the token is not signed")
        }
        for step in policies.beforeNested { step.apply(to: &self) }
    }

    /// Runs the backend policies (`--account-token`, `--device-id`, `--require-active`), decided
    /// on this payload or, for a notification, on the tokens nested in it.
    mutating func finish(nested: [Inspection.Nested]) {
        guard !policies.afterNested.isEmpty else { return }
        if kind == .notification {
            for item in nested {
                guard let payload = item.inspection.jws?.payload.essentials else { continue }
                subjects.append(Subject(label: item.path + " ", payload: payload, kind: item.inspection.kind))
            }
        } else {
            subjects.append(Subject(label: "", payload: jws.payload.essentials, kind: kind))
        }
        for step in policies.afterNested { step.apply(to: &self) }
    }

    /// Records whether the certificates are valid now too, when they were checked at another
    /// moment (the signing time, `--at`), by the rule every envelope shares (`ValidityNow.decide`).
    ///
    /// - Parameters:
    ///   - validText: the detail when they are ("the chain is also valid now (…)").
    ///   - certificates: the chain `explain` names when they are not.
    ///   - known: true when they are already known to be valid now (a validated window covers now).
    ///   - validate: validates them now; not called when `known`.
    mutating func recordValidityNow(
        validText: String, certificates: [Certificate], known: Bool,
        validate: () -> TrustStore.PathValidation
    ) {
        let (roots, nowText, now) = (options.trustStore.roots, nowText, options.now)
        validNow = Inspection.ValidityNow.decide(
            checkTime: checkTime, options: options, validText: validText, known: known, validate: validate
        ) { result in
            ChainPolicy.Failure(result: result, certificates: certificates, roots: roots, when: .phrase(nowText, now))
                .text
        }
    }

    mutating func record(_ check: Check) {
        checks.append(check)
    }

    mutating func record(_ name: Check.Name, _ passed: Bool, _ detail: String) {
        checks.append(Check(name, passed: passed, detail))
    }

    /// Records a check whose detail is put into words only when read.
    mutating func record(_ name: Check.Name, _ passed: Bool, _ detail: some CheckDetail) {
        checks.append(Check(name, passed: passed, detail))
    }

    /// A short name for messages: the common name in quotes, else the subject.
    static func name(_ certificate: Certificate) -> String {
        "\"\(certificate.commonName ?? certificate.subject)\""
    }
}
