/// What trust selection decides for one token, once, before any policy runs: the trust model
/// (where the signing key comes from), the `x5c` and `key` checks that selection decided, and
/// how a valid verdict is worded. Immutable: the policies read it (`TokenSubject.trust`) and record the
/// checks it carries; none of them decides trust again.
struct TrustDecision {
    /// nil when no model applies (`x5c` unusable): the signature is then not checked.
    let model: TrustModel?
    /// The `x5c` check's outcome (nil for a model that reads no `x5c`).
    let x5c: Check?
    /// The token looks like StoreKit Testing in Xcode's, trusted or not.
    let isXcode: Bool
    /// A developer-signed token (a `kid`, no `x5c`): the `key` check's outcome.
    var key: Check? = nil
    /// A developer-signed token whose `kid` is none of the keys given: its key ID and theirs.
    var otherKeys: (kid: String, given: [String])? = nil

    /// What a valid verdict says was verified, its hints worded by `hints`.
    func verdict(_ hints: any HintWording) -> String {
        model?.verdict(hints) ?? "signature and certificate chain verified"
    }

    /// What a valid verdict says was checked at the check time ("certificates", "claims").
    var checkedAtCheckTime: String { model?.checkedAtCheckTime ?? "certificates" }
}

extension TrustModel {
    /// Decides trust for a token from its parsed `x5c` (or its `kid`): the model and the checks
    /// selection decides.
    ///
    /// - Parameter claims: a developer-signed token's claims, already decoded (`TokenSubject.claims`).
    static func select(
        jws: CompactJWS, chain: ParsedChain, options: VerificationOptions, claims: [String: JSONValue]
    ) -> TrustDecision {
        let trustStore = options.trustStore
        func failed(_ detail: some CheckDetail, isXcode: Bool = false) -> TrustDecision {
            TrustDecision(model: nil, x5c: Check(.x5c, passed: false, detail), isXcode: isXcode)
        }
        let header = jws.header.object
        if let kid = chain.developerKeyID {
            return DeveloperKeyPolicy.select(
                kid: kid, keys: options.developerKeys,
                identity: ForeignJWT.identifiers(header: header, payload: claims), hints: options.hints)
        }
        if let problem = chain.problem {
            if header["x5c"] == nil, header["alg"] == .string("ES256") {
                return failed(ForeignJWT.Detail.withoutChain(header: header, payload: jws.payload.object))
            }
            return TrustDecision(model: nil, x5c: Check(.x5c, passed: false, problem), isXcode: false)
        }
        let certificates = chain.certificates
        let count = chain.count
        if count == 1, let only = certificates.first {
            // Rare (App Store chains have three certificates): worth decoding the whole payload.
            let isXcode = looksLikeXcode(header: header, payload: jws.payload.object, certificate: only)
            if trustStore.rootDERs.contains(only.derBytes) {
                return TrustDecision(
                    model: .pinnedCertificate(only, isXcode: isXcode),
                    x5c: Check(
                        .x5c, passed: true,
                        "1 certificate, identical to a trusted root (\(options.hints.word(.givenRoot)))"),
                    isXcode: isXcode)
            }
            if isXcode {
                return failed(X5CPolicy.Detail.untrustedXcode(only, options.hints), isXcode: true)
            }
        }
        guard count == 3 else {
            return failed(X5CPolicy.Detail.count(count))
        }
        let model = TrustModel.appStoreChain(leaf: certificates[0], intermediate: certificates[1])
        if let ignored = chain.ignoredRoot {
            return TrustDecision(
                model: model, x5c: Check(.x5c, passed: true, X5CPolicy.Detail.ignoredRoot(ignored)),
                isXcode: false)
        }
        return TrustDecision(
            model: model,
            x5c: Check(
                .x5c, passed: true,
                "3 certificates (leaf, intermediate, root); x5c[2] is never trusted, only the configured roots are"),
            isXcode: false)
    }

    /// Xcode's markers: `kid` "Apple_Xcode_Key", the certificate's name, or an Xcode environment.
    private static func looksLikeXcode(
        header: [String: JSONValue], payload: [String: JSONValue], certificate: Certificate
    ) -> Bool {
        header["kid"] == .string("Apple_Xcode_Key") || certificate.commonName == "StoreKit Testing in Xcode"
            || payload["environment"] == .string("Xcode") || payload["receiptType"] == .string("Xcode")
    }
}
