/// `key`: a developer-signed token (a `kid`, no `x5c`) names a key among those given with
/// `--key`; that key becomes the trust model (`TrustModel.developerKey`). Without any `--key`
/// no key is trusted (exit 2, naming the key ID it needs); with keys of other IDs the token is
/// not signed by any of them, which the `signature` check reports (exit 1).
struct DeveloperKeyPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("key", failing: .invalidChain)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        token.trust.key.map { .check($0) } ?? .none
    }

    /// The selection for a token without `x5c` whose header has `kid`.
    static func select(
        kid: JSONValue, keys: [DeveloperKey], identity: [String], hints: any HintWording
    ) -> TrustDecision {
        guard case .string(let id) = kid else {
            return .init(
                model: nil, x5c: nil, isXcode: false, key: Check(name, passed: false, Detail.kidNotAString(kid)))
        }
        if let key = keys.first(where: { $0.keyID == id }) {
            return .init(
                model: .developerKey(key), x5c: nil, isXcode: false,
                key: Check(name, passed: true, Detail.found(id, hints)))
        }
        if keys.isEmpty {
            return .init(
                model: nil, x5c: nil, isXcode: false,
                key: Check(name, passed: false, Detail.noKeys(id, identity, hints)))
        }
        return .init(model: nil, x5c: nil, isXcode: false, otherKeys: (id, keys.map(\.keyID)))
    }

    enum Detail: CheckDetail {
        case found(String, any HintWording)
        case noKeys(String, [String], any HintWording)
        case kidNotAString(JSONValue)

        var text: String {
            switch self {
            case .found(let kid, let hints):
                "kid \"\(Excerpt.of(kid, limit: 40))\" is a \(hints.word(.givenKey)) given: no x5c, signed with the "
                    + "developer's own key"
            case .noKeys(let kid, let identity, let hints):
                "no trusted key: ES256 without x5c (\(identity.joined(separator: ", "))): signed with a key of its "
                    + "own (a developer-signed token), not App Store signed data; to verify it, give the key "
                    + "\"\(Excerpt.of(kid, limit: 40))\" with \(hints.word(.needsKey(kid: Excerpt.of(kid, limit: 40)))) "
                    + "(or its public key, with \(hints.word(.needsKeyID)))"
            case .kidNotAString(let value):
                "kid is \(value.kindDescription), expected the key ID string of a developer key"
            }
        }
    }
}

extension Check.Name {
    package static let key = DeveloperKeyPolicy.name
}
