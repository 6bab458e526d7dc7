internal import JWSInspectCore

/// jwsinspect's documented exit statuses.
enum ExitStatus: Int32 {
    case success = 0
    case invalidSignature = 1
    case invalidChain = 2
    case wrongEnvironment = 3
    case wrongApp = 4
    case malformed = 5
    case inactive = 6
    case usage = 64
    case unreadable = 66

    init(_ status: Status) {
        switch status {
        case .valid, .unverified: self = .success
        case .invalidSignature: self = .invalidSignature
        case .invalidChain: self = .invalidChain
        case .wrongEnvironment: self = .wrongEnvironment
        case .wrongApp: self = .wrongApp
        case .malformed: self = .malformed
        case .inactive: self = .inactive
        }
    }
}
