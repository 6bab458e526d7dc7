import Foundation
import StrictJSONParser
import Testing

@Suite struct StrictJSONTests {
    /// The judge must refuse what lax parsers accept, or the output tests prove nothing.
    @Test(arguments: [
        #"{"a":1,}"#, #"[1,]"#, #"{"a":01}"#, #"{"a":-}"#, #"{"a":1.}"#, #"{"a":"\x"}"#, "{\"a\":\"\u{1}\"}",
        "\u{FEFF}{}", #"{"a":NaN}"#, #"{"a":1} x"#, "{\"a\":\"\n\"}",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Array(text.utf8)) }
    }

    /// A member named twice (also through an escape) is refused and named: output never holds
    /// one, and the fuzz harness judges accepted headers and payloads by it.
    @Test(arguments: [#"{"a":1,"a":2}"#, #"{"x":{"b":1,"\u0062":2}}"#])
    func refusesAMemberNamedTwice(_ text: String) {
        #expect {
            try StrictJSON.parse(Array(text.utf8))
        } throws: { error in
            (error as? StrictJSON.Failure)?.duplicateMember != nil
        }
    }

    @Test func acceptsJSON() throws {
        let value = try StrictJSON.parse(Array(#" {"a":[1,-0.5e+3,true,false,null,"\u00e9\n\"",{}],"b":[]} "#.utf8))
        #expect((value as? [String: Any])?["b"] as? [Any] != nil)
        #expect(try StrictJSON.lines("{\"a\":1}\n{\"b\":2}\n").count == 2)
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.lines("{\"a\":1}\n\n") }
    }
}
