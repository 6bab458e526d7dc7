import Foundation
import JWSInspectCore
import Testing

@testable import JWSInspectCLI

/// Issue 26's one contract: one spelling for each thing in every subcommand, the other
/// accepted as input.
@Suite struct OneContractTests {
    /// A choice matches without regard to case, hyphens or underscores, so no two of one
    /// option's choices may read alike that way.
    @Test func noTwoChoicesOfAnOptionReadAlike() {
        for command in Commands.all {
            for option in command.options {
                guard case .values(let values) = option.completion else { continue }
                let spellings = values.map(ArgumentParser.spelling)
                #expect(Set(spellings).count == values.count, "\(command.name) \(option.names[0]): \(values)")
            }
        }
    }

    @Test func aKindIsReadInEitherSpelling() throws {
        let token = try MintTokenCommandTests.mint(["renewalInfo"])
        for spelling in ["renewalInfo", "renewal-info", "RENEWAL_INFO"] {
            let (status, json) = try MintTokenCommandTests.inspect(token, ["--type", spelling])
            #expect(status == 0 && json["type"] as? String == "renewalInfo", "\(spelling)")
        }
        let refused = InProcess.run(["--type", "renewal-infos", token])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--type must be transaction, renewalInfo, notification"), "\(refused.stderr)")
    }

    /// `mint` names the subtype as `fetch` does, `--subtype` accepted for short.
    @Test func mintTakesTheSubtypeByFetchsName() throws {
        for option in ["--notification-subtype", "--subtype"] {
            let token = try MintTokenCommandTests.mint([
                "notification", "--notification-type", "DID_CHANGE_RENEWAL_STATUS", option, "AUTO_RENEW_DISABLED",
            ])
            let (status, json) = try MintTokenCommandTests.inspect(token)
            let payload = try #require(json["payload"] as? [String: Any])
            #expect(status == 0 && payload["subtype"] as? String == "AUTO_RENEW_DISABLED", "\(option)")
        }
    }
}
