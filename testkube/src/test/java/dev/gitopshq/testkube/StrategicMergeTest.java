package dev.gitopshq.testkube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StrategicMergeTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void mergesContainersByNameInsteadOfReplacingTheList() throws Exception {
    JsonNode original =
        json(
            "{'spec':{'containers':[{'name':'web','image':'nginx:1.27','ports':"
                + "[{'containerPort':80}]},{'name':'sidecar','image':'envoy:1'}]}}");
    JsonNode patch =
        json(
            "{'spec':{'$setElementOrder/containers':[{'name':'web'},"
                + "{'name':'sidecar'}],'containers':[{'name':'web','image':'nginx:1.28'}]}}");

    JsonNode merged = StrategicMerge.apply(original, patch);

    assertThat(merged)
        .isEqualTo(
            json(
                "{'spec':{'containers':[{'name':'web','image':'nginx:1.28',"
                    + "'ports':[{'containerPort':80}]},{'name':'sidecar','image':'envoy:1'}]}}"));
  }

  @Test
  void deletesFieldsSetToNullAndListItemsMarkedForDeletion() throws Exception {
    JsonNode original =
        json(
            "{'metadata':{'labels':{'a':'1','b':'2'}},"
                + "'spec':{'containers':[{'name':'web'},{'name':'sidecar'}]}}");
    JsonNode patch =
        json(
            "{'metadata':{'labels':{'b':null}},"
                + "'spec':{'containers':[{'name':'sidecar','$patch':'delete'}]}}");

    assertThat(StrategicMerge.apply(original, patch))
        .isEqualTo(
            json("{'metadata':{'labels':{'a':'1'}},'spec':{'containers':[{'name':'web'}]}}"));
  }

  @Test
  void replacesListsWithoutAMergeKeyAndDropsDirectives() throws Exception {
    JsonNode original = json("{'spec':{'args':['a','b'],'template':{'x':1}}}");
    JsonNode patch = json("{'spec':{'args':['c'],'template':{'$patch':'replace','y':2}}}");

    assertThat(StrategicMerge.apply(original, patch))
        .isEqualTo(json("{'spec':{'args':['c'],'template':{'y':2}}}"));
  }
}
