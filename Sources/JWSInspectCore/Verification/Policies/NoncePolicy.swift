internal import FoundationEssentials

/// `nonce`: the StoreKit kinds carry a one-time UUID.
enum NoncePolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("nonce", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard run.isDeveloperSigned, run.kind.isForStoreKit else { return }
        let value = run.claims["nonce"]
        var passed = false
        if case .string(let nonce)? = value, UUID(uuidString: nonce) != nil { passed = true }
        run.record(name, passed, ClaimDetail.nonce(value))
    }
}

extension Check.Name {
    public static let nonce = NoncePolicy.name
}
