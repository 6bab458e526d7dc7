// swift-tools-version:6.0
import Foundation
import PackageDescription

/// The commit `--version` names: JWSINSPECT_COMMIT, set by the Makefile from `git rev-parse`
/// (12 hexadecimal digits, "-dirty" when the tree had changes). Anything else is ignored.
let buildCommit: String? = {
    guard let value = ProcessInfo.processInfo.environment["JWSINSPECT_COMMIT"] else { return nil }
    let hex = value.hasSuffix("-dirty") ? value.dropLast(6) : Substring(value)
    guard (7...40).contains(hex.count), hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
    return value
}()

/// Whether `jwsinspect listen` (libmicrohttpd's server, in jwsinspect-fetch alone) is built:
/// JWSINSPECT_LISTEN=1 or 0, set by the Makefile after it installs libmicrohttpd-dev; unset,
/// whether libmicrohttpd's header is installed.
let listenEnabled: Bool = {
    switch ProcessInfo.processInfo.environment["JWSINSPECT_LISTEN"] {
    case "1": return true
    case "0": return false
    default: return FileManager.default.fileExists(atPath: "/usr/include/microhttpd.h")
    }
}()
/// The listen targets' name where listen is built, and the define its code is compiled under.
let listenDependency: [Target.Dependency] = listenEnabled ? ["ListenHTTP"] : []
let listenDefine: [SwiftSetting] = listenEnabled ? [.define("JWSINSPECT_LISTEN")] : []

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "jwsinspect",
    products: [
        .executable(name: "jwsinspect", targets: ["jwsinspect"]),
        .executable(name: "jwsinspect-fetch", targets: ["jwsinspect-fetch"]),
    ],
    targets: [
        // System OpenSSL 3 (libcrypto) with shims for the macros Swift cannot import.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // The commit the build came from, for `--version` (the one C file a new commit recompiles).
        .target(
            name: "CProgram",
            cSettings: buildCommit.map { [.define("JWSINSPECT_COMMIT", to: "\"\($0)\"")] } ?? []),
        // Decoding and verification; never prints, never exits.
        .target(name: "JWSInspectCore", dependencies: ["COpenSSL"], swiftSettings: strictSettings),
        // The App Store Server API client: requests, retries, pages; returns answers. It sends
        // through an `HTTPTransport` and links no network library.
        .target(name: "AppStoreServerAPI", dependencies: ["JWSInspectCore"], swiftSettings: strictSettings),
        // URLSession's transport (FoundationNetworking, libcurl on Linux): jwsinspect-fetch's alone.
        .target(name: "AppStoreServerHTTP", dependencies: ["AppStoreServerAPI"], swiftSettings: strictSettings),
        // Arguments, rendering and exit codes; no cryptography.
        .target(
            name: "JWSInspectCLI",
            dependencies: ["JWSInspectCore", "AppStoreServerAPI", "AppStoreTestData", "CProgram"],
            swiftSettings: strictSettings),
        // The offline commands, linking no network library; `jwsinspect fetch` runs jwsinspect-fetch.
        .executableTarget(name: "jwsinspect", dependencies: ["JWSInspectCLI"]),
        .executableTarget(
            name: "jwsinspect-fetch", dependencies: ["JWSInspectCLI", "AppStoreServerHTTP"] + listenDependency,
            swiftSettings: listenDefine),
        // Test data for App Store verifiers, shipped in `jwsinspect mint`: an Apple-shaped CA of
        // one's own, payloads and defects; every failure is a thrown `MintError`.
        .target(
            name: "AppStoreTestData", dependencies: ["JWSInspectCore", "COpenSSL"], swiftSettings: strictSettings),
        // The test suites' fixtures on top of it (receipts, chains, payloads): never shipped; a
        // failure here is a programming error and stops the test.
        .target(
            name: "TestPKI", dependencies: ["AppStoreTestData", "JWSInspectCore", "COpenSSL"],
            swiftSettings: strictSettings),
        // The tests' one way of starting a process (`ChildProcess`) and what they start: the OCSP
        // responders of `OCSPTestPKI`. Test code only; its one platform shim is CChildProcess.
        .target(name: "CChildProcess", path: "Tests/CChildProcess"),
        .target(
            name: "TestSupport", dependencies: ["CChildProcess", "TestPKI", "AppStoreTestData", "JWSInspectCore"],
            path: "Tests/TestSupport", swiftSettings: strictSettings),
        .executableTarget(name: "mint-test-tokens", dependencies: ["TestPKI", "AppStoreTestData", "JWSInspectCore"]),
        // A strict JSON parser independent of the code under test: the judge of JSON output.
        .target(name: "StrictJSONParser", swiftSettings: strictSettings),
        // libFuzzer target (make fuzz); built normally, it replays a corpus (make test does).
        .executableTarget(
            name: "fuzz-jwsinspect", dependencies: ["JWSInspectCore", "JWSInspectCLI", "StrictJSONParser"]),
        .testTarget(
            name: "JWSInspectCoreTests",
            dependencies: ["COpenSSL", "JWSInspectCore", "AppStoreTestData", "TestPKI", "TestSupport"]),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: ["AppStoreServerAPI", "AppStoreServerHTTP", "AppStoreTestData", "JWSInspectCore", "TestPKI"]
                + listenDependency,
            swiftSettings: listenDefine),
        .testTarget(
            name: "JWSInspectCLITests",
            dependencies: [
                "jwsinspect", "jwsinspect-fetch", "fuzz-jwsinspect", "JWSInspectCLI", "JWSInspectCore",
                "AppStoreServerAPI", "AppStoreServerHTTP", "AppStoreTestData", "TestPKI", "TestSupport",
                "StrictJSONParser",
            ] + listenDependency,
            exclude: ["Goldens"],
            swiftSettings: listenDefine
        ),
    ]
        + (listenEnabled ? listenTargets : [])
)

/// `jwsinspect listen`'s HTTP server, built where libmicrohttpd is (`listenEnabled`).
var listenTargets: [Target] {
    [
        // System libmicrohttpd with fixed-argument wrappers for its variadic calls.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // `MicroHTTPDServer`, the `NotificationServer` of jwsinspect-fetch; jwsinspect never links it.
        .target(
            name: "ListenHTTP", dependencies: ["AppStoreServerAPI", "CMicroHTTPD", "JWSInspectCore"],
            swiftSettings: strictSettings),
    ]
}
