/// One check run on a JWS: what was checked, whether it passed, and the values involved.
public struct Check: Sendable, Equatable {
    /// Stable identifiers, as they appear in JSON output.
    public enum Name: String, Sendable, CaseIterable {
        case alg
        case crit
        case x5c
        case chain
        case chainPath = "chain-path"
        case leafOID = "leaf-oid"
        case intermediateOID = "intermediate-oid"
        case signature
        case bundleId = "bundle-id"
        case appAppleId = "app-apple-id"
        case environment
        case accountToken = "account-token"
        case deviceVerification = "device-verification"
        case active

        /// The status an input gets when this check fails.
        public var failureStatus: Status {
            switch self {
            case .alg, .crit, .signature: .invalidSignature
            case .x5c, .chain, .chainPath, .leafOID, .intermediateOID: .invalidChain
            case .bundleId, .appAppleId, .accountToken, .deviceVerification: .wrongApp
            case .environment: .wrongEnvironment
            case .active: .inactive
            }
        }
    }

    public let name: Name
    public let passed: Bool
    /// What was checked and the values seen (expected vs actual on failure).
    public let detail: String

    public init(_ name: Name, passed: Bool, _ detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }
}
