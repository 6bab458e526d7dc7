internal import FoundationEssentials

/// The checks one verifier runs, chosen and configured once from its `VerificationOptions`: the
/// one place that decides which policies apply, in what order, with what they compare, and so
/// which payload members are decoded.
///
/// Built once per `Verifier` (never per token) and shared by reference: a run walks an array
/// of configured values, each a call through a witness table, with no allocation.
final class Policies: Sendable {
    /// Run on a JWS itself, in order.
    let steps: [any TokenStep]
    /// The backend expectations, in order, run after the envelope's own checks (and a
    /// notification's nested tokens) on every envelope.
    let expectations: [any ExpectationPolicy]
    /// A legacy receipt's validation: its signature, chain and Apple's markers.
    let receiptSigner: ReceiptSigner
    /// False with `--no-verify`: nothing cryptographic runs.
    let verifiesSignatures: Bool
    /// The payload members the chosen policies read, and the check time's, in order, once each.
    let payloadMembers: [String]
    /// "now (2026-…)", formatted once per verifier for messages.
    let nowText: String

    /// The policies `options` ask for: the builder, and the only place checks are chosen.
    static func make(_ options: VerificationOptions) -> Policies {
        let nowText = "now (\(ISO8601.string(options.now)))"
        let validityNow = Inspection.ValidityNow.Rule(
            reports: options.reportsValidityNow, now: options.now, nowText: nowText)
        var steps: [any TokenStep] = []
        if options.verifySignatures {
            steps += [
                SignaturePolicy.Unsigned(), AlgorithmPolicy(), CriticalHeaderPolicy(), X5CPolicy(),
                DeveloperKeyPolicy(),
                TrustModelValidation(
                    store: options.trustStore, strictX509: options.strictX509, hints: options.hints,
                    validityNow: validityNow),
                SignaturePolicy(),
            ]
            if let requester = options.revocation {
                steps.append(
                    RevocationPolicy(
                        requester: requester, requireCheck: options.requireRevocationCheck, now: options.now,
                        nowText: nowText))
            }
            steps += [
                // Developer-signed tokens only (each returns at once for App Store data).
                AudiencePolicy(), IssuerPolicy(), BundleClaimPolicy(), IssuedAtPolicy(), ExpiryPolicy(),
                NoncePolicy(), FeatureClaimsPolicy(),
            ]
        }
        var expectations: [any ExpectationPolicy] = []
        if let expected = options.expectedBundleId { expectations.append(BundleIDPolicy(expected: expected)) }
        if let expected = options.expectedAppAppleId {
            expectations.append(AppAppleIDPolicy(expected: expected, environment: options.expectedEnvironment))
        }
        if let expected = options.expectedEnvironment { expectations.append(EnvironmentPolicy(expected: expected)) }
        if let expected = options.expectedAccountToken { expectations.append(AccountTokenPolicy(expected: expected)) }
        if let device = options.deviceVerificationID { expectations.append(DeviceVerificationPolicy(deviceID: device)) }
        if options.requireActive {
            expectations.append(
                ActivePolicy(at: options.accessTime, fixed: options.accessAt, context: options.accessContext))
        }
        return Policies(
            steps: steps, expectations: expectations,
            receiptSigner: ReceiptSigner(options: options, validityNow: validityNow),
            verifiesSignatures: options.verifySignatures, nowText: nowText)
    }

    /// Every policy, in the order they run: what `make(_:)` chooses when every option asks for
    /// its check (a test holds the two to each other).
    static let all: [any VerifierPolicy.Type] = [
        SignaturePolicy.self, AlgorithmPolicy.self, CriticalHeaderPolicy.self, X5CPolicy.self,
        DeveloperKeyPolicy.self, ChainPolicy.self, ChainPathPolicy.self, LeafOIDPolicy.self,
        IntermediateOIDPolicy.self, RevocationPolicy.self, AudiencePolicy.self, IssuerPolicy.self,
        BundleClaimPolicy.self, IssuedAtPolicy.self, ExpiryPolicy.self, NoncePolicy.self, FeatureClaimsPolicy.self,
        BundleIDPolicy.self, AppAppleIDPolicy.self, EnvironmentPolicy.self, AccountTokenPolicy.self,
        DeviceVerificationPolicy.self, ActivePolicy.self,
    ]

    private init(
        steps: [any TokenStep], expectations: [any ExpectationPolicy], receiptSigner: ReceiptSigner,
        verifiesSignatures: Bool, nowText: String
    ) {
        self.steps = steps
        self.expectations = expectations
        self.receiptSigner = receiptSigner
        self.verifiesSignatures = verifiesSignatures
        self.nowText = nowText
        var members = Inspection.CheckTime.payloadMembers
        for policy in Self.chosen(steps: steps, expectations: expectations) {
            for member in policy.payloadMembers where !members.contains(member) { members.append(member) }
        }
        self.payloadMembers = members
    }

    /// The policies chosen for a JWS, in the order they run, each once.
    var chosen: [any VerifierPolicy.Type] { Self.chosen(steps: steps, expectations: expectations) }

    /// The policies `steps` and `expectations` record, in order, each once.
    private static func chosen(steps: [any TokenStep], expectations: [any ExpectationPolicy])
        -> [any VerifierPolicy.Type]
    {
        var chosen: [any VerifierPolicy.Type] = []
        let recorded = steps.flatMap { type(of: $0).policies } + expectations.map { type(of: $0) }
        for policy in recorded where !chosen.contains(where: { $0.name == policy.name }) {
            chosen.append(policy)
        }
        return chosen
    }
}
