/// `iss`: the issuer ID is present.
enum IssuerPolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("iss", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    static func apply(to run: inout Run) {
        guard run.isDeveloperSigned else { return }
        let value = run.claims["iss"]
        var passed = false
        if case .string(let issuer)? = value, !issuer.isEmpty { passed = true }
        run.record(name, passed, ClaimDetail.issuer(value))
    }
}

extension Check.Name {
    public static let iss = IssuerPolicy.name
}
