import ConfabModel
import GRDB

/// Id columns are checked by the schema (`CHECK (length(id) = …)`) or written only from
/// valid ids, so a row that does not hold one is a corrupt database, not input to handle.
extension Row {
    func nodeID(_ column: String) -> NodeID { NodeID(bytes: self[column] as [UInt8])! }
    func conversationID(_ column: String) -> ConversationID { ConversationID(bytes: self[column] as [UInt8])! }
}
