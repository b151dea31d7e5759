//! Properties over generated 0.3 stream results: they read back as written, convert to 1.0 and
//! back without loss, and a `final` that disagrees with the state is always reported.

mod strategies;

use a2a_typestate_types::v03::{StreamResult, TaskStatusUpdateEvent};
use proptest::prelude::*;
use strategies::v03::{status, stream_result};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn v03_stream_results_write_and_read_back_equal(result in stream_result()) {
        let json = serde_json::to_string(&result).unwrap();
        let back: StreamResult = a2a_typestate_types::parse::from_str(&json).unwrap();
        prop_assert_eq!(back, result);
    }

    #[test]
    fn v03_stream_results_convert_to_v1_and_back_without_loss(result in stream_result()) {
        let v1 = result.to_v1();
        prop_assert!(v1.is_lossless(), "{:?}", v1.losses);
        // The 1.0 value survives 1.0 JSON, so nothing hides in a field 1.0 does not write.
        let json = serde_json::to_string(&v1.value).unwrap();
        let reread: a2a_typestate_types::StreamResponse = a2a_typestate_types::parse::from_str(&json).unwrap();
        let back = StreamResult::from_v1(&reread);
        prop_assert!(back.is_lossless(), "{:?}", back.losses);
        prop_assert_eq!(back.value, result);
    }

    #[test]
    fn final_disagreeing_with_the_state_is_always_reported(status in status(), is_final in any::<bool>()) {
        let event = TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            is_final,
            status,
            metadata: None,
        };
        let converted = event.to_v1();
        let final_losses = converted.losses.iter().filter(|l| l.path == "final").count();
        prop_assert_eq!(final_losses, usize::from(is_final != event.status.state.ends_stream()));
    }
}
